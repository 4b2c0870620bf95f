// The fields of an NMOS flow definition the tools show or need. The library validates definitions completely; this
// reads them leniently so that mxl-info can still describe a flow whose definition has unusual content.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::client
{
    struct GroupHint
    {
        std::string group;
        std::string role;
    };

    struct FlowDescription
    {
        std::string id;
        std::string label;
        // "urn:x-nmos:format:video", "...:audio", "...:data".
        std::string format;
        // "video/v210", "audio/float32", ...; may be empty for audio.
        std::string mediaType;
        // The raw "urn:x-nmos:tag:grouphint/v1.0" entries.
        std::vector<std::string> groupHints;
        std::uint32_t frameWidth = 0;
        std::uint32_t frameHeight = 0;
        bool interlaced = false;
        // The NMOS colorspace of a video flow ("BT709", ...); empty when absent.
        std::string colorspace;
        std::uint32_t channelCount = 1;
    };

    // nullopt when the text is not a JSON object.
    std::optional<FlowDescription> tryParseFlowDescription(std::string_view json);

    // Throws ClientError(Usage) naming `origin` (a file or flow) when the text is not a JSON object.
    FlowDescription parseFlowDescription(std::string_view json, std::string_view origin);

    // Splits "<group>:<role>[:<scope>]"; nullopt when there is no ':'.
    std::optional<GroupHint> parseGroupHint(std::string_view hint);

    // The definition with its grouphint tag replaced by the single entry "<group>:<role>" (re-serialized JSON).
    std::string withGroupHint(std::string_view json, std::string_view origin, std::string_view group, std::string_view role);
}
