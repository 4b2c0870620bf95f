/*
 * An extension of this implementation, not part of the MXL SDK: copies between host memory and the payloads of a
 * device-memory flow (writer option "payloadLocation": "device", docs/device-flows.md), through the CUDA module libmxl
 * loaded for the flow. They are synchronous and meant for tools and tests, which then need neither the CUDA runtime
 * nor a compiler for it; a GPU application reads and writes the payload pointers with its own kernels and copies.
 */
#pragma once

#ifdef __cplusplus
#    include <cstddef>
#    include <cstdint>
extern "C"
{
#else
#    include <stddef.h>
#    include <stdint.h>
#endif

#include <mxl/flow.h>
#include <mxl/platform.h>

    /*
     * Copies `bytes` from `hostSource` to `deviceDestination`, which must lie with all its bytes in the writer's device
     * payloads (a pointer from mxlFlowWriterOpenGrain, plus an offset). MXL_ERR_INVALID_ARG for a host flow, a NULL
     * pointer or a range outside the payloads; MXL_ERR_UNKNOWN with the runtime's words when the copy fails.
     */
    MXL_EXPORT
    mxlStatus mxlFlowWriterCopyToDevice(mxlFlowWriter writer, uint8_t* deviceDestination, void const* hostSource, size_t bytes);

    /* The reverse for a reader: `deviceSource` must lie in the reader's device payloads (from mxlFlowReaderGetGrain*). */
    MXL_EXPORT
    mxlStatus mxlFlowReaderCopyToHost(mxlFlowReader reader, void* hostDestination, uint8_t const* deviceSource, size_t bytes);

#ifdef __cplusplus
}
#endif
