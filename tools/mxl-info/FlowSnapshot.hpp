// Everything mxl-info shows about one flow, read at one moment through the public API only: the shared flow info,
// the definition text, whether a writer holds it, and the current index at its rate.
#pragma once

#include <client/FlowDescription.hpp>
#include <client/MxlHandles.hpp>

#include <mxl/flowinfo.h>

#include <cstdint>
#include <string>

namespace mxl::tools::info
{
    struct FlowSnapshot
    {
        std::string id;
        mxlFlowInfo info{};
        std::string definition;
        // Empty fields when the definition is not JSON (mxl-info still shows the shared info then).
        client::FlowDescription description;
        bool active = false;
        // The grain or sample index current at the TAI clock when the info was read.
        std::uint64_t nowIndex = 0;

        [[nodiscard]] bool continuous() const noexcept
        {
            return info.config.common.format == MXL_DATA_FORMAT_AUDIO;
        }
    };

    // Throws ToolError(FlowNotFound) when the flow is not in the domain, ToolError(Failure) when an API call fails.
    FlowSnapshot readFlowSnapshot(client::Instance const& instance, std::string const& flowId);
}
