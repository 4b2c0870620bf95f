#include "SenderLookup.hpp"

#include <HttpClient.hpp>

#include <common/BoundedJson.hpp>

#include <fmt/format.h>

#include <array>

namespace mxl::nmos
{
    namespace
    {
        using json = nlohmann::json;

        constexpr std::chrono::milliseconds queryTimeout{1000};

        // The Query API's document at `path`, or why there is none.
        std::variant<json, LookupFailure> queryDocument(QueryAddress const& query, std::string const& path)
        {
            auto const url = fmt::format("{}{}{}", query.origin, query.apiPath, path);
            auto const answer = httpGet(url, queryTimeout);
            if (auto const* failure = std::get_if<HttpFailure>(&answer))
            {
                return LookupFailure{fmt::format("GET {}: {}", url, failure->reason)};
            }
            auto document = mxl::parseJsonOrDiscarded(std::get<std::string>(answer));
            if (!document.is_object())
            {
                return LookupFailure{fmt::format("GET {}: the answer is not a JSON object", url)};
            }
            return document;
        }
    }

    std::variant<std::string, LookupFailure> lookUpSenderConnectionApi(QueryAddress const& query, std::string const& senderId)
    {
        auto const sender = queryDocument(query, "/senders/" + senderId);
        if (auto const* failure = std::get_if<LookupFailure>(&sender))
        {
            return *failure;
        }
        auto const deviceId = std::get<json>(sender).value("device_id", json{});
        if (!deviceId.is_string())
        {
            return LookupFailure{fmt::format("sender {} in the Query API at {} names no device_id", senderId, query.url)};
        }
        auto const device = queryDocument(query, "/devices/" + deviceId.get<std::string>());
        if (auto const* failure = std::get_if<LookupFailure>(&device))
        {
            return *failure;
        }
        auto const controls = std::get<json>(device).value("controls", json::array());
        for (auto const* type : std::array{"urn:x-nmos:control:sr-ctrl/v1.2", "urn:x-nmos:control:sr-ctrl/v1.1"})
        {
            for (auto const& control : controls.is_array() ? controls : json::array())
            {
                auto const href = control.is_object() ? control.value("href", json{}) : json{};
                if (control.is_object() && control.value("type", json{}) == type && href.is_string() && isHttpUrl(href.get<std::string>()))
                {
                    auto base = href.get<std::string>();
                    if (!base.ends_with('/'))
                    {
                        base += '/';
                    }
                    return fmt::format("{}single/senders/{}/", base, senderId);
                }
            }
        }
        return LookupFailure{fmt::format("device {} of sender {} names no IS-05 Connection API (control "
                                         "urn:x-nmos:control:sr-ctrl/v1.2 or /v1.1 with an http:// or https:// href)",
                                         deviceId.get<std::string>(), senderId)};
    }
}
