#include "SourceFlowName.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace mxl::gst
{
    namespace
    {
        constexpr std::array<char const*, sourceFlowPropertyCount> propertyNames{"flow-id", "video-flow-id", "audio-flow-id",
                                                                                 "data-flow-id"};

        // With its article, for messages: "a video", "an audio".
        char const* formatName(mxlDataFormat format) noexcept
        {
            switch (format)
            {
            case MXL_DATA_FORMAT_VIDEO:
                return "a video";
            case MXL_DATA_FORMAT_AUDIO:
                return "an audio";
            case MXL_DATA_FORMAT_DATA:
                return "a data";
            default:
                return "an unspecified";
            }
        }

        mxlDataFormat expectedFormat(SourceFlowProperty property) noexcept
        {
            switch (property)
            {
            case SourceFlowProperty::videoFlowId:
                return MXL_DATA_FORMAT_VIDEO;
            case SourceFlowProperty::audioFlowId:
                return MXL_DATA_FORMAT_AUDIO;
            case SourceFlowProperty::dataFlowId:
                return MXL_DATA_FORMAT_DATA;
            default:
                return MXL_DATA_FORMAT_UNSPECIFIED;
            }
        }
    }

    char const* propertyName(SourceFlowProperty property) noexcept
    {
        return propertyNames.at(static_cast<std::size_t>(property));
    }

    SourceFlowName resolveSourceFlow(SourceFlowIds const& ids)
    {
        std::vector<std::size_t> set;
        for (std::size_t i = 0; i < ids.size(); ++i)
        {
            if (!ids[i].empty())
            {
                set.push_back(i);
            }
        }
        if (set.empty())
        {
            throw std::invalid_argument{"flow-id is not set: set it (or video-flow-id, audio-flow-id or data-flow-id) to the UUID of a "
                                        "flow of the domain (mxl-info lists them)"};
        }
        if (set.size() > 1)
        {
            throw std::invalid_argument{fmt::format("{} \"{}\" and {} \"{}\" are both set: set only one flow property",
                                                    propertyNames.at(set[0]), ids[set[0]], propertyNames.at(set[1]), ids[set[1]])};
        }
        return SourceFlowName{ids[set[0]], static_cast<SourceFlowProperty>(set[0])};
    }

    void checkSourceFlowFormat(SourceFlowName const& name, mxlDataFormat flowFormat)
    {
        auto const expected = expectedFormat(name.property);
        if (expected == MXL_DATA_FORMAT_UNSPECIFIED || expected == flowFormat)
        {
            return;
        }
        auto const fitting = flowFormat == MXL_DATA_FORMAT_VIDEO   ? SourceFlowProperty::videoFlowId
                             : flowFormat == MXL_DATA_FORMAT_AUDIO ? SourceFlowProperty::audioFlowId
                             : flowFormat == MXL_DATA_FORMAT_DATA  ? SourceFlowProperty::dataFlowId
                                                                   : SourceFlowProperty::flowId;
        throw std::invalid_argument{fmt::format("{} \"{}\" is {} flow, not {} flow: set {} (or flow-id) to read it",
                                                propertyName(name.property), name.flowId, formatName(flowFormat), formatName(expected),
                                                propertyName(fitting))};
    }
}
