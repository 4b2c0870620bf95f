// The facility's authorization server as a resource server and a client see it (RFC 8414 metadata at its issuer's
// well-known URL): its public keys (jwks_uri), fetched on first use, again after an hour, and again at once for a
// token signed with a key not held yet (at most every few seconds, so that forged key ids cannot make it fetch without
// end); and its token endpoint. Keys already held stay in use while the server cannot be reached.
#pragma once

#include "JsonWebKeys.hpp"

#include <HttpClient.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

namespace mxl::auth
{
    class AuthorizationServer
    {
    public:
        // `issuer`: the server's issuer URL (http[s]://host[:port][/path]), as its tokens' "iss" claim.
        AuthorizationServer(std::string issuer, std::chrono::milliseconds timeout);

        [[nodiscard]] std::string const& issuer() const noexcept
        {
            return _issuer;
        }

        // The keys held, fetched first where none are or they are an hour old, or where `keyId` is not among them; or why
        // there are none.
        std::variant<std::shared_ptr<JsonWebKeys const>, std::string> keysFor(std::string const& keyId);

        // The token endpoint from the server's metadata, or why it is not known.
        std::variant<std::string, HttpFailure> tokenEndpoint();

    private:
        using Clock = std::chrono::steady_clock;

        std::string _issuer;
        std::chrono::milliseconds _timeout;
        std::mutex _mutex;
        std::shared_ptr<JsonWebKeys const> _keys;
        std::optional<Clock::time_point> _fetchedAt;
        std::optional<Clock::time_point> _triedAt;
        std::string _tokenEndpoint;

        // Metadata and keys, under _mutex; "" or why not.
        std::string fetch();
    };
}
