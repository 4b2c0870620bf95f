#include "DeviceBuffer.hpp"

#include "CudaCall.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

namespace mxl::bench::device
{
    DeviceBuffer::DeviceBuffer(std::size_t bytes)
    {
        void* data = nullptr;
        checkCuda(cudaMalloc(&data, bytes), fmt::format("cudaMalloc of {} bytes", bytes));
        _data = static_cast<std::uint8_t*>(data);
    }

    DeviceBuffer::~DeviceBuffer()
    {
        cudaFree(_data);
    }
}
