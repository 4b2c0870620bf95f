// The contract between libmxl and libmxl-fabrics: a flow handle's mapped memory, which the fabrics layer registers
// with the NIC. libmxl fills `memory` when it opens a flow; libmxl-fabrics only reads it. Both libraries are built
// from this header, so no symbol beyond the public API needs to be exported.
#pragma once

#include "common/FlowLayout.hpp"
#include "common/device_module.h"

#include <cstddef>
#include <cstdint>

namespace mxl
{
    struct FlowMemory
    {
        // The `data` file mapping: read-write for writers, read-only for readers.
        layout::FlowData* data = nullptr;
        // Discrete flows: one mapping per ring slot, each grainFileBytes long (8192-byte header, then the payload;
        // the header alone for a device flow).
        std::uint8_t* const* grains = nullptr;
        std::uint32_t grainCount = 0;
        std::size_t grainFileBytes = 0;
        // Device flows (data->info.config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY): slot k's
        // payload is at devicePayloads + k × deviceGrainStrideBytes in this process's mapping of the writer's ring, on
        // this process's CUDA ordinal localDeviceIndex (the flow info holds the writer's).
        std::uint8_t* devicePayloads = nullptr;
        std::size_t deviceGrainStrideBytes = 0;
        std::int32_t localDeviceIndex = -1;
        // The table of the device module libmxl loaded for this flow, so that libmxl-fabrics can stage payloads through
        // pinned host memory (ABI 1.1: host_allocate, streams, asynchronous copies) without loading or linking the
        // runtime itself. Null for a host flow.
        mxlDeviceModule const* deviceModule = nullptr;
        // Continuous flows: the planar `channels` file.
        std::uint8_t* channels = nullptr;
        std::size_t channelBytes = 0;
        std::uint32_t sampleWordBytes = 0;
    };
}

// The structs behind the public opaque handles. The flow library's reader and writer classes derive from them.
struct mxlFlowReader_t
{
    mxl::FlowMemory memory;

    virtual ~mxlFlowReader_t() = default;
};

struct mxlFlowWriter_t
{
    mxl::FlowMemory memory;

    virtual ~mxlFlowWriter_t() = default;
};
