#include "CudaCall.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mxl::bench::device
{
    std::string cudaErrorText(cudaError_t error)
    {
        return fmt::format("{} ({})", cudaGetErrorString(error), cudaGetErrorName(error));
    }

    void checkCuda(cudaError_t error, std::string const& what)
    {
        if (error != cudaSuccess)
        {
            throw std::runtime_error{fmt::format("{}: {}", what, cudaErrorText(error))};
        }
    }
}
