#include "FlowDescription.hpp"

#include <common/BoundedJson.hpp>

#include "ClientError.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mxl::client
{
    namespace
    {
        constexpr char const* groupHintTag = "urn:x-nmos:tag:grouphint/v1.0";

        std::optional<nlohmann::json> tryParseObject(std::string_view json)
        {
            auto document = mxl::parseJsonOrDiscarded(json);
            if (document.is_discarded() || !document.is_object())
            {
                return std::nullopt;
            }
            return document;
        }

        nlohmann::json parseObject(std::string_view json, std::string_view origin)
        {
            if (auto document = tryParseObject(json))
            {
                return *std::move(document);
            }
            throw ClientError{ErrorKind::Usage, fmt::format("the flow definition {} is not a JSON object", origin)};
        }

        std::string stringField(nlohmann::json const& document, char const* key)
        {
            auto const it = document.find(key);
            return it != document.end() && it->is_string() ? it->get<std::string>() : std::string{};
        }

        std::uint32_t unsignedField(nlohmann::json const& document, char const* key, std::uint32_t fallback)
        {
            auto const it = document.find(key);
            return it != document.end() && it->is_number_unsigned() ? it->get<std::uint32_t>() : fallback;
        }
    }

    std::optional<FlowDescription> tryParseFlowDescription(std::string_view json)
    {
        auto const parsed = tryParseObject(json);
        if (!parsed)
        {
            return std::nullopt;
        }
        auto const& document = *parsed;
        FlowDescription description;
        description.id = stringField(document, "id");
        description.label = stringField(document, "label");
        description.format = stringField(document, "format");
        description.mediaType = stringField(document, "media_type");
        description.frameWidth = unsignedField(document, "frame_width", 0);
        description.frameHeight = unsignedField(document, "frame_height", 0);
        description.interlaced = stringField(document, "interlace_mode").starts_with("interlaced");
        description.colorspace = stringField(document, "colorspace");
        description.channelCount = unsignedField(document, "channel_count", 1);
        if (auto const tags = document.find("tags"); tags != document.end() && tags->is_object())
        {
            if (auto const hints = tags->find(groupHintTag); hints != tags->end() && hints->is_array())
            {
                for (auto const& hint : *hints)
                {
                    if (hint.is_string())
                    {
                        description.groupHints.push_back(hint.get<std::string>());
                    }
                }
            }
        }
        return description;
    }

    FlowDescription parseFlowDescription(std::string_view json, std::string_view origin)
    {
        if (auto description = tryParseFlowDescription(json))
        {
            return *std::move(description);
        }
        throw ClientError{ErrorKind::Usage, fmt::format("the flow definition {} is not a JSON object", origin)};
    }

    std::optional<GroupHint> parseGroupHint(std::string_view hint)
    {
        auto const groupEnd = hint.find(':');
        if (groupEnd == std::string_view::npos)
        {
            return std::nullopt;
        }
        auto const role = hint.substr(groupEnd + 1);
        return GroupHint{std::string{hint.substr(0, groupEnd)}, std::string{role.substr(0, role.find(':'))}};
    }

    std::string withGroupHint(std::string_view json, std::string_view origin, std::string_view group, std::string_view role)
    {
        auto document = parseObject(json, origin);
        if (!document.contains("tags") || !document["tags"].is_object())
        {
            document["tags"] = nlohmann::json::object();
        }
        document["tags"][groupHintTag] = nlohmann::json::array({fmt::format("{}:{}", group, role)});
        return document.dump(4);
    }
}
