#include "PayloadLocation.hpp"

#include "CudaCall.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <cstring>

namespace mxl::bench::device
{
    std::optional<std::string> writerOptions(PayloadLocation location, int deviceIndex)
    {
        if (location == PayloadLocation::host)
        {
            return std::nullopt;
        }
        return fmt::format(R"({{"payloadLocation":"device","deviceIndex":{}}})", deviceIndex);
    }

    void copyToPayload(PayloadLocation location, std::uint8_t* payload, void const* hostSource, std::size_t bytes)
    {
        if (location == PayloadLocation::host)
        {
            std::memcpy(payload, hostSource, bytes);
            return;
        }
        checkCuda(cudaMemcpy(payload, hostSource, bytes, cudaMemcpyHostToDevice),
                  fmt::format("cudaMemcpy of {} bytes into a grain", bytes));
        // From pageable memory cudaMemcpy may return before the bytes reach the device; the grain is committed next, and
        // the fabrics layer stages it on a stream of its own that does not wait for this one.
        checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a copy into a grain");
    }

    void copyFromPayload(PayloadLocation location, void* hostDestination, std::uint8_t const* payload, std::size_t bytes)
    {
        if (location == PayloadLocation::host)
        {
            std::memcpy(hostDestination, payload, bytes);
            return;
        }
        checkCuda(cudaMemcpy(hostDestination, payload, bytes, cudaMemcpyDeviceToHost),
                  fmt::format("cudaMemcpy of {} bytes out of a grain", bytes));
    }
}
