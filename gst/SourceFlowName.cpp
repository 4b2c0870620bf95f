#include "SourceFlowName.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace mxl::gst
{
    namespace
    {
        struct PropertyMeaning
        {
            char const* name;
            // What the property asks the flow to carry; flow-id asks for nothing.
            mxlDataFormat format;
            // The format with its article, for messages: "a video", "an audio".
            char const* formatText;
        };

        // Indexed by SourceFlowProperty.
        constexpr std::array<PropertyMeaning, sourceFlowPropertyCount> meanings{{
            {"flow-id", MXL_DATA_FORMAT_UNSPECIFIED, "an unspecified"},
            {"video-flow-id", MXL_DATA_FORMAT_VIDEO, "a video"},
            {"audio-flow-id", MXL_DATA_FORMAT_AUDIO, "an audio"},
            {"data-flow-id", MXL_DATA_FORMAT_DATA, "a data"},
        }};

        PropertyMeaning const& meaningOf(SourceFlowProperty property)
        {
            return meanings.at(static_cast<std::size_t>(property));
        }

        // The property that asks for `format`; flow-id for a format no property asks for.
        SourceFlowProperty propertyFor(mxlDataFormat format) noexcept
        {
            auto const found = std::ranges::find(meanings, format, &PropertyMeaning::format);
            return found != meanings.end() ? static_cast<SourceFlowProperty>(found - meanings.begin()) : SourceFlowProperty::flowId;
        }
    }

    char const* propertyName(SourceFlowProperty property) noexcept
    {
        return meaningOf(property).name;
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
                                                    meanings.at(set[0]).name, ids[set[0]], meanings.at(set[1]).name, ids[set[1]])};
        }
        return SourceFlowName{ids[set[0]], static_cast<SourceFlowProperty>(set[0])};
    }

    void checkSourceFlowFormat(SourceFlowName const& name, mxlDataFormat flowFormat)
    {
        auto const& expected = meaningOf(name.property);
        if (expected.format == MXL_DATA_FORMAT_UNSPECIFIED || expected.format == flowFormat)
        {
            return;
        }
        auto const& fitting = meaningOf(propertyFor(flowFormat));
        throw std::invalid_argument{fmt::format("{} \"{}\" is {} flow, not {} flow: set {} (or flow-id) to read it", expected.name,
                                                name.flowId, fitting.formatText, expected.formatText, fitting.name)};
    }
}
