#include "ClientCredentials.hpp"

#include <common/Base64.hpp>
#include <common/BoundedJson.hpp>
#include <common/Log.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace mxl::auth
{
    namespace
    {
        constexpr std::chrono::seconds retrySpacing{5};
        // RFC 6749 section 5.1 leaves "expires_in" optional; without a usable one the token is held as long as the
        // shortest lifetime IS-10 recommends, and no token is held longer than a day, whatever the server says.
        constexpr std::chrono::seconds unstatedLifetime{60};
        constexpr std::chrono::seconds longestLifetime{std::chrono::hours{24}};

        std::chrono::seconds lifetimeOf(nlohmann::json const& expiresIn)
        {
            if (expiresIn.is_number_unsigned())
            {
                auto const seconds = expiresIn.get<std::uint64_t>();
                return seconds == 0 ? unstatedLifetime : std::chrono::seconds{std::min<std::uint64_t>(seconds, longestLifetime.count())};
            }
            return unstatedLifetime;
        }
    }

    std::string formEncode(std::string_view text)
    {
        std::string encoded;
        for (auto const c : text)
        {
            auto const byte = static_cast<unsigned char>(c);
            if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~')
            {
                encoded += c;
            }
            else
            {
                encoded += fmt::format("%{:02X}", byte);
            }
        }
        return encoded;
    }

    ClientCredentials::ClientCredentials(std::shared_ptr<AuthorizationServer> server, std::string clientId, std::string clientSecret,
                                         std::string scope, std::chrono::milliseconds timeout)
        : _server{std::move(server)}
        , _clientId{std::move(clientId)}
        , _clientSecret{std::move(clientSecret)}
        , _scope{std::move(scope)}
        , _timeout{timeout}
    {
    }

    std::variant<ClientCredentials::Grant, std::string> ClientCredentials::request() const
    {
        auto const endpoint = _server->tokenEndpoint();
        if (auto const* failure = std::get_if<HttpFailure>(&endpoint))
        {
            return failure->reason;
        }
        auto const& url = std::get<std::string>(endpoint);
        if (!isHttpsUrl(url))
        {
            return fmt::format("the token endpoint '{}' is not https://; the client's secret is not sent to it", url);
        }
        auto const credentials = "Basic " + encodeBase64(formEncode(_clientId) + ":" + formEncode(_clientSecret));
        auto const answer =
            httpPostForm(url, fmt::format("grant_type=client_credentials&scope={}", formEncode(_scope)), credentials, _timeout);
        if (auto const* failure = std::get_if<HttpFailure>(&answer))
        {
            return fmt::format("POST {} failed: {}", url, failure->reason);
        }
        auto const& got = std::get<HttpAnswer>(answer);
        auto const document = parseJsonOrDiscarded(got.body);
        if (got.status != 200)
        {
            auto const error = document.is_object() ? document.value("error", nlohmann::json{}) : nlohmann::json{};
            return fmt::format("POST {} answered {}{}", url, got.status, error.is_string() ? ": " + error.get<std::string>() : "");
        }
        auto const token = document.is_object() ? document.value("access_token", nlohmann::json{}) : nlohmann::json{};
        auto const lifetime = document.is_object() ? document.value("expires_in", nlohmann::json{}) : nlohmann::json{};
        if (!token.is_string() || token.get<std::string>().empty())
        {
            return fmt::format("POST {} answered no access_token", url);
        }
        return Grant{token.get<std::string>(), lifetimeOf(lifetime)};
    }

    void ClientCredentials::take(std::variant<Grant, std::string> outcome)
    {
        if (auto* grant = std::get_if<Grant>(&outcome))
        {
            auto const now = Clock::now();
            _token = std::move(grant->token);
            _expiresAt = now + grant->lifetime;
            _renewAt = now + grant->lifetime / 2;
            // The spacing is between failed requests: the renewal is due at half the lifetime, however short.
            _triedAt.reset();
            _lastProblem.clear();
            log::info("auth: got an access token for client '{}' ({} s, scope '{}')", _clientId, grant->lifetime.count(), _scope);
            return;
        }
        auto& problem = std::get<std::string>(outcome);
        if (problem != _lastProblem)
        {
            log::warn("auth: no access token for client '{}': {}", _clientId, problem);
        }
        _lastProblem = std::move(problem);
    }

    std::string ClientCredentials::bearer()
    {
        std::unique_lock lock{_mutex};
        auto const now = Clock::now();
        if (_renewing)
        {
            // A caller whose token still holds goes on with it; one without waits for the renewal under way, which its
            // two requests (metadata and token) bound.
            _renewed.wait_for(lock, 2 * _timeout, [&] { return !_renewing || Clock::now() < _expiresAt; });
        }
        else if ((_token.empty() || now >= _renewAt) && (!_triedAt || now - *_triedAt >= retrySpacing))
        {
            _triedAt = now;
            _renewing = true;
            lock.unlock();
            auto outcome = request();
            lock.lock();
            _renewing = false;
            take(std::move(outcome));
            _renewed.notify_all();
        }
        return Clock::now() < _expiresAt ? _token : std::string{};
    }
}
