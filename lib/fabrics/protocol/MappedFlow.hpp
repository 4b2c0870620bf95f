// The flow a target (its writer) or an initiator (its reader) was given: its mapped memory, and its configuration once it
// is known to be of the kind the caller moves, grains (video, data) or samples (audio).
#pragma once

#include "common/FlowMemory.hpp"
#include "common/Status.hpp"

#include <mxl/dataformat.h>
#include <mxl/flowinfo.h>

#include <type_traits>

namespace mxl::fabrics
{
    enum class FlowCarries
    {
        Grains,
        Samples,
    };

    // The memory behind a flow reader or writer handle; throws MXL_ERR_INVALID_ARG for a null handle, naming `role`'s config.
    template <typename Handle>
    FlowMemory const& flowMemoryOf(Handle handle, char const* role)
    {
        if (handle == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "the {} config has no flow {}", role, std::is_same_v<Handle, mxlFlowReader> ? "reader" : "writer");
        }
        return handle->memory;
    }

    // Throws MXL_ERR_INVALID_ARG naming `role` ("target", "initiator", ...) when the flow is not mapped or does not carry `carries`.
    inline mxlFlowConfigInfo const& mappedFlowConfig(FlowMemory const& memory, char const* role, FlowCarries carries)
    {
        if (memory.data == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "the {} has no mapped flow", role);
        }
        auto const& config = memory.data->info.config;
        auto const format = static_cast<int>(config.common.format);
        auto const wanted = carries == FlowCarries::Grains ? mxlIsDiscreteDataFormat(format) : mxlIsContinuousDataFormat(format);
        if (!wanted)
        {
            fail(MXL_ERR_INVALID_ARG, "the {}'s flow (format {}) does not carry {}", role, config.common.format,
                 carries == FlowCarries::Grains ? "grains" : "samples");
        }
        return config;
    }
}
