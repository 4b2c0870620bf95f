#include "MxlTransport.hpp"

#include "DomainDefinition.hpp"

#include <HttpClient.hpp>
#include <common/BoundedJson.hpp>

#include <fmt/format.h>

namespace mxl::nmos
{
    namespace
    {
        using json = nlohmann::json;

        // A parameter whose only concrete value is `own` (where known).
        TransportParam fixed(char const* name, std::optional<std::string> const& own, json initial, bool takesAuto, std::string const& what)
        {
            auto const value = own ? json(*own) : json{};
            return {name, std::move(initial), own ? json{{"enum", {*own}}} : json::object(),
                    [=](json const& requested) -> std::string
                    {
                        if (requested.is_null() || (own && requested == value) || (requested == "auto" && takesAuto && own))
                        {
                            return {};
                        }
                        if (requested == "auto")
                        {
                            return own ? fmt::format("\"auto\" is not a value of {} here (BCP-007-03); null or \"{}\"", name, *own)
                                       : fmt::format("\"auto\" cannot be resolved: {} is not known (no usable domain_def.json)", what);
                        }
                        return own ? fmt::format("expected null, \"auto\" or \"{}\" ({})", *own, what)
                                   : fmt::format("expected null ({} is not known: no usable domain_def.json)", what);
                    },
                    takesAuto ? value : json{}};
        }

        json rational(json const& definition, char const* key)
        {
            return definition.contains(key) ? json{{"enum", {definition[key]}}} : json{};
        }

        void addEnum(json& set, char const* capability, json const& definition, char const* key)
        {
            if (auto const it = definition.find(key); it != definition.end())
            {
                set[capability] = {{"enum", {*it}}};
            }
        }
    }

    std::vector<TransportParam> mxlParams(Role role, std::optional<std::string> const& domainId, std::string const& flowId)
    {
        if (role == Role::Sender)
        {
            auto const domainWhat =
                domainId ? fmt::format("the domain of this sender's flow, {}", *domainId) : std::string{"this sender's domain"};
            return {fixed("mxl_domain_id", domainId, domainId ? json(*domainId) : json{}, true, domainWhat),
                    fixed("mxl_flow_id", flowId, flowId, true, fmt::format("the flow this sender sends, {}", flowId))};
        }
        auto domain = TransportParam{"mxl_domain_id", nullptr, json::object(),
                                     [domainId](json const& requested) -> std::string
                                     {
                                         if (requested.is_null() || (requested.is_string() && isMxlUuid(requested.get<std::string>())))
                                         {
                                             return {};
                                         }
                                         if (requested == "auto")
                                         {
                                             return domainId ? std::string{}
                                                             : std::string{"\"auto\" cannot be resolved: this receiver's domain has no "
                                                                           "usable domain_def.json"};
                                         }
                                         return "expected null, \"auto\" or the sender's domain id (a lowercase UUID)";
                                     },
                                     domainId ? json(*domainId) : json{}};
        return {std::move(domain),
                fixed("mxl_flow_id", flowId, nullptr, false, fmt::format("the flow this receiver receives, {}", flowId))};
    }

    TransportParam senderApiParam(Role role, std::string const& resourceUrl)
    {
        if (role == Role::Sender)
        {
            auto const own = json(resourceUrl);
            return {"ext_mxl_sender_api", own, {{"enum", {resourceUrl}}}, [own](json const& value) {
                        return value == own ? std::string{} : std::string{"this sender's own Connection API resource cannot be changed"};
                    }};
        }
        return {"ext_mxl_sender_api", nullptr, json::object(),
                [](json const& value)
                {
                    return value.is_null() ||
                                   (value.is_string() && isHttpUrl(value.get<std::string>()) && senderIdOfApi(value.get<std::string>()))
                               ? std::string{}
                               : std::string{"expected the sender's ext_mxl_sender_api (an http:// or https:// URL of a sender's "
                                             "Connection API resource, .../single/senders/<id>/), or null"};
                }};
    }

    std::optional<std::string> senderIdOfApi(std::string_view url)
    {
        constexpr std::string_view senders = "/single/senders/";
        auto const at = url.rfind(senders);
        if (at == std::string_view::npos)
        {
            return std::nullopt;
        }
        auto const id = url.substr(at + senders.size());
        auto const end = id.find('/');
        auto const named = id.substr(0, end);
        return named.empty() || (end != std::string_view::npos && end + 1 != id.size()) ? std::nullopt : std::optional{std::string{named}};
    }

    json receiverConstraintSet(json const& flowDefinition)
    {
        json set{{"urn:x-nmos:cap:meta:label", fmt::format("MXL flow {}", flowDefinition.value("id", ""))}};
        addEnum(set, "urn:x-nmos:cap:format:media_type", flowDefinition, "media_type");
        if (auto const grainRate = rational(flowDefinition, "grain_rate"); !grainRate.is_null())
        {
            set["urn:x-nmos:cap:format:grain_rate"] = grainRate;
        }
        addEnum(set, "urn:x-nmos:cap:format:frame_width", flowDefinition, "frame_width");
        addEnum(set, "urn:x-nmos:cap:format:frame_height", flowDefinition, "frame_height");
        addEnum(set, "urn:x-nmos:cap:format:interlace_mode", flowDefinition, "interlace_mode");
        addEnum(set, "urn:x-nmos:cap:format:colorspace", flowDefinition, "colorspace");
        addEnum(set, "urn:x-nmos:cap:format:transfer_characteristic", flowDefinition, "transfer_characteristic");
        if (auto const sampleRate = rational(flowDefinition, "sample_rate"); !sampleRate.is_null())
        {
            set["urn:x-nmos:cap:format:sample_rate"] = sampleRate;
        }
        addEnum(set, "urn:x-nmos:cap:format:channel_count", flowDefinition, "channel_count");
        addEnum(set, "urn:x-nmos:cap:format:sample_depth", flowDefinition, "bit_depth");
        return set;
    }
}
