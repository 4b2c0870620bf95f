// Where a flow's payloads live, and the copies the bench makes between them and host memory: memcpy for a host flow,
// a synchronous cudaMemcpy for a device flow (the bench links the CUDA runtime itself; libmxl's mxlFlowWriterCopyToDevice
// is for programs that do not).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace mxl::bench::device
{
    enum class PayloadLocation
    {
        host,
        device,
    };

    // The mxlCreateFlowWriter options that ask for `location` ("payloadLocation", "deviceIndex"); empty for host.
    std::optional<std::string> writerOptions(PayloadLocation location, int deviceIndex);

    void copyToPayload(PayloadLocation location, std::uint8_t* payload, void const* hostSource, std::size_t bytes);
    void copyFromPayload(PayloadLocation location, void* hostDestination, std::uint8_t const* payload, std::size_t bytes);
}
