// Which flow mxlsrc reads. Besides our `flow-id` (any flow), mxlsrc takes the MXL SDK plugin's `video-flow-id`,
// `audio-flow-id` and `data-flow-id`, so that pipelines written for that plugin run unchanged; those three also say what
// the flow must carry, and a flow of another format is refused by name at start.
#pragma once

#include <mxl/dataformat.h>

#include <array>
#include <cstddef>
#include <string>

namespace mxl::gst
{
    enum class SourceFlowProperty : std::size_t
    {
        flowId,
        videoFlowId,
        audioFlowId,
        dataFlowId,
    };

    inline constexpr std::size_t sourceFlowPropertyCount = 4;

    // The value of each flow property, empty when unset, indexed by SourceFlowProperty.
    using SourceFlowIds = std::array<std::string, sourceFlowPropertyCount>;

    struct SourceFlowName
    {
        std::string flowId;
        SourceFlowProperty property = SourceFlowProperty::flowId;
    };

    // "flow-id", "video-flow-id", ...
    char const* propertyName(SourceFlowProperty property) noexcept;

    // The one property set, or std::invalid_argument when none or more than one is.
    SourceFlowName resolveSourceFlow(SourceFlowIds const& ids);

    // std::invalid_argument naming the property, the flow id and the flow's format when `flowFormat` is not what the
    // property asks for (flow-id takes any).
    void checkSourceFlowFormat(SourceFlowName const& name, mxlDataFormat flowFormat);
}
