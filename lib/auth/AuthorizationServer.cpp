#include "AuthorizationServer.hpp"

#include <HttpClient.hpp>
#include <common/BoundedJson.hpp>

#include <fmt/format.h>

namespace mxl::auth
{
    namespace
    {
        constexpr std::chrono::hours keysKeptFor{1};
        // The least time between two fetches, whatever tokens arrive.
        constexpr std::chrono::seconds fetchSpacing{5};

        // RFC 8414 section 3: the well-known path goes between the host and the issuer's own path.
        std::string metadataUrl(std::string const& issuer)
        {
            auto const hostStart = issuer.find("://");
            auto const pathStart = hostStart == std::string::npos ? std::string::npos : issuer.find('/', hostStart + 3);
            auto const origin = issuer.substr(0, pathStart);
            auto path = pathStart == std::string::npos ? std::string{} : issuer.substr(pathStart);
            while (path.ends_with('/'))
            {
                path.pop_back();
            }
            return origin + "/.well-known/oauth-authorization-server" + path;
        }

        // Without a token: the metadata and the keys are public, and the process's own tokens come from this server,
        // whose token endpoint may be what the fetch is for.
        std::variant<nlohmann::json, std::string> getJson(std::string const& url, std::chrono::milliseconds timeout)
        {
            auto got = httpExchangeAuthorized("GET", url, {}, {}, timeout);
            if (auto const* failure = std::get_if<HttpFailure>(&got))
            {
                return fmt::format("GET {} failed: {}", url, failure->reason);
            }
            auto const& answer = std::get<HttpAnswer>(got);
            if (answer.status != 200)
            {
                return fmt::format("GET {} failed: the server answered {}", url, answer.status);
            }
            auto document = parseJsonOrDiscarded(answer.body);
            if (!document.is_object())
            {
                return fmt::format("GET {} did not answer a JSON object", url);
            }
            return document;
        }
    }

    AuthorizationServer::AuthorizationServer(std::string issuer, std::chrono::milliseconds timeout)
        : _issuer{std::move(issuer)}
        , _timeout{timeout}
    {
    }

    std::string AuthorizationServer::fetch()
    {
        _triedAt = Clock::now();
        auto const metadataAt = metadataUrl(_issuer);
        auto metadata = getJson(metadataAt, _timeout);
        if (auto const* problem = std::get_if<std::string>(&metadata))
        {
            return *problem;
        }
        auto const& document = std::get<nlohmann::json>(metadata);
        auto const jwksUri = document.value("jwks_uri", nlohmann::json{});
        if (!jwksUri.is_string() || !isHttpUrl(jwksUri.get<std::string>()))
        {
            return fmt::format("the metadata at {} has no http(s) \"jwks_uri\"", metadataAt);
        }
        auto const tokenEndpoint = document.value("token_endpoint", nlohmann::json{});
        _tokenEndpoint = tokenEndpoint.is_string() ? tokenEndpoint.get<std::string>() : std::string{};
        auto keys = getJson(jwksUri.get<std::string>(), _timeout);
        if (auto const* problem = std::get_if<std::string>(&keys))
        {
            return *problem;
        }
        try
        {
            _keys = std::make_shared<JsonWebKeys const>(std::get<nlohmann::json>(keys));
        }
        catch (JsonWebKeysError const& error)
        {
            return fmt::format("{}: {}", jwksUri.get<std::string>(), error.what());
        }
        _fetchedAt = Clock::now();
        return {};
    }

    std::variant<std::shared_ptr<JsonWebKeys const>, std::string> AuthorizationServer::keysFor(std::string const& keyId)
    {
        std::lock_guard const lock{_mutex};
        auto const now = Clock::now();
        auto const stale = !_fetchedAt || now - *_fetchedAt > keysKeptFor;
        auto const unknown = _keys && !keyId.empty() && _keys->candidates(keyId).empty();
        auto const mayFetch = !_triedAt || now - *_triedAt >= fetchSpacing;
        if ((stale || unknown) && mayFetch)
        {
            if (auto const problem = fetch(); !problem.empty() && !_keys)
            {
                return fmt::format("the authorization server's keys cannot be fetched: {}", problem);
            }
        }
        if (!_keys)
        {
            return std::string{"the authorization server's keys are not fetched yet"};
        }
        return _keys;
    }

    std::variant<std::string, HttpFailure> AuthorizationServer::tokenEndpoint()
    {
        std::lock_guard const lock{_mutex};
        if (_tokenEndpoint.empty() && (!_triedAt || Clock::now() - *_triedAt >= fetchSpacing))
        {
            if (auto const problem = fetch(); !problem.empty() && _tokenEndpoint.empty())
            {
                return HttpFailure{problem};
            }
        }
        if (_tokenEndpoint.empty())
        {
            return HttpFailure{"the authorization server's metadata names no token_endpoint"};
        }
        return _tokenEndpoint;
    }
}
