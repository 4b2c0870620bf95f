#include "AuthorizationServer.hpp"

#include <HttpClient.hpp>
#include <common/BoundedJson.hpp>
#include <common/Log.hpp>

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
        , _fetcher{[this](std::stop_token const& stop) { fetchWhenDue(stop); }}
    {
    }

    AuthorizationServer::Fetched AuthorizationServer::fetch() const
    {
        Fetched fetched;
        auto const metadataAt = metadataUrl(_issuer);
        auto metadata = getJson(metadataAt, _timeout);
        if (auto const* problem = std::get_if<std::string>(&metadata))
        {
            fetched.problem = *problem;
            return fetched;
        }
        auto const& document = std::get<nlohmann::json>(metadata);
        auto const tokenEndpoint = document.value("token_endpoint", nlohmann::json{});
        fetched.tokenEndpoint = tokenEndpoint.is_string() ? tokenEndpoint.get<std::string>() : std::string{};
        auto const jwksUri = document.value("jwks_uri", nlohmann::json{});
        if (!jwksUri.is_string() || !isHttpUrl(jwksUri.get<std::string>()))
        {
            fetched.problem = fmt::format("the metadata at {} has no http(s) \"jwks_uri\"", metadataAt);
            return fetched;
        }
        auto keys = getJson(jwksUri.get<std::string>(), _timeout);
        if (auto const* problem = std::get_if<std::string>(&keys))
        {
            fetched.problem = *problem;
            return fetched;
        }
        try
        {
            fetched.keys = std::make_shared<JsonWebKeys const>(std::get<nlohmann::json>(keys));
        }
        catch (JsonWebKeysError const& error)
        {
            fetched.problem = fmt::format("{}: {}", jwksUri.get<std::string>(), error.what());
        }
        return fetched;
    }

    void AuthorizationServer::fetchWhenDue(std::stop_token const& stop)
    {
        std::unique_lock lock{_mutex};
        while (!stop.stop_requested())
        {
            auto const now = Clock::now();
            auto const spaced = _triedAt ? *_triedAt + fetchSpacing : now;
            auto const regular = _problem.empty() && _fetchedAt ? *_fetchedAt + keysKeptFor : spaced;
            auto const due = _wanted ? std::min(regular, spaced) : regular;
            if (now < due)
            {
                auto const wanted = _wanted;
                _changed.wait_until(lock, stop, due, [&] { return _wanted != wanted; });
                continue;
            }
            _wanted = false;
            _triedAt = now;
            lock.unlock();
            auto fetched = fetch();
            lock.lock();
            if (!fetched.tokenEndpoint.empty())
            {
                _tokenEndpoint = std::move(fetched.tokenEndpoint);
            }
            if (fetched.keys)
            {
                // Said when something changed, not on every fetch an unknown key id asks for.
                if (!_keys || !_problem.empty() || !_keys->sameKeyIds(*fetched.keys))
                {
                    log::info("auth: fetched {} signing key(s) of '{}'", fetched.keys->size(), _issuer);
                }
                _keys = std::move(fetched.keys);
                _fetchedAt = Clock::now();
            }
            else if (fetched.problem != _problem)
            {
                log::warn("auth: the keys of '{}' cannot be fetched: {}{}", _issuer, fetched.problem,
                          _keys ? "; the keys held stay in use" : "; requests are refused until they are");
            }
            _problem = std::move(fetched.problem);
            ++_fetches;
            _changed.notify_all();
        }
    }

    void AuthorizationServer::wantFetch()
    {
        if (!_wanted)
        {
            _wanted = true;
            _changed.notify_all();
        }
    }

    std::variant<std::shared_ptr<JsonWebKeys const>, std::string> AuthorizationServer::keysFor(std::string const& keyId)
    {
        std::lock_guard const lock{_mutex};
        if (!_keys || (!keyId.empty() && !_keys->holds(keyId)))
        {
            wantFetch();
        }
        if (!_keys)
        {
            return _problem.empty() ? std::string{"the authorization server's keys are not fetched yet"}
                                    : fmt::format("the authorization server's keys cannot be fetched: {}", _problem);
        }
        return _keys;
    }

    std::variant<std::shared_ptr<JsonWebKeys const>, std::string> AuthorizationServer::awaitKeys(std::chrono::milliseconds limit)
    {
        {
            std::unique_lock lock{_mutex};
            _changed.wait_for(lock, limit, [this] { return _fetches > 0; });
        }
        return keysFor({});
    }

    std::variant<std::string, HttpFailure> AuthorizationServer::tokenEndpoint()
    {
        std::unique_lock lock{_mutex};
        if (_tokenEndpoint.empty())
        {
            auto const fetches = _fetches;
            wantFetch();
            // The fetch may have to wait out the spacing, and then takes two requests.
            _changed.wait_for(lock, fetchSpacing + 2 * _timeout, [&] { return _fetches != fetches; });
        }
        if (!_tokenEndpoint.empty())
        {
            return _tokenEndpoint;
        }
        return HttpFailure{_problem.empty() ? std::string{"the authorization server's metadata names no token_endpoint"} : _problem};
    }
}
