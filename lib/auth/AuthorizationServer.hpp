// The facility's authorization server as a resource server and a client see it (RFC 8414 metadata at its issuer's
// well-known URL): its public keys (jwks_uri) and its token endpoint. A thread of its own fetches them: at start, again
// after an hour, and again when a token names a key not held (at most every few seconds, so that forged key ids cannot
// make it fetch without end). Requests are judged with the keys held and never wait for a fetch: a server that is slow,
// silent or drips its answer holds up only that thread. Keys already held stay in use while the server cannot be
// reached.
#pragma once

#include "JsonWebKeys.hpp"

#include <HttpClient.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>

namespace mxl::auth
{
    class AuthorizationServer
    {
    public:
        // `issuer`: the server's issuer URL (http[s]://host[:port][/path]), as its tokens' "iss" claim; `timeout`: the
        // deadline of each request to it.
        AuthorizationServer(std::string issuer, std::chrono::milliseconds timeout);

        [[nodiscard]] std::string const& issuer() const noexcept
        {
            return _issuer;
        }

        // The keys held, or why none are, at once: where none are held or `keyId` is not among them, a fetch is asked
        // for and a later call sees its outcome.
        std::variant<std::shared_ptr<JsonWebKeys const>, std::string> keysFor(std::string const& keyId);

        // The keys once the first fetch has ended, waiting for it at most `limit`; or why there are none.
        std::variant<std::shared_ptr<JsonWebKeys const>, std::string> awaitKeys(std::chrono::milliseconds limit);

        // The token endpoint from the server's metadata, waiting for a fetch where it is not known yet; or why it is not
        // known.
        std::variant<std::string, HttpFailure> tokenEndpoint();

    private:
        using Clock = std::chrono::steady_clock;

        struct Fetched
        {
            std::shared_ptr<JsonWebKeys const> keys;
            std::string tokenEndpoint;
            // "" or why the keys were not fetched.
            std::string problem;
        };

        std::string _issuer;
        std::chrono::milliseconds _timeout;
        std::mutex _mutex;
        std::condition_variable_any _changed;
        std::shared_ptr<JsonWebKeys const> _keys;
        std::string _tokenEndpoint;
        std::string _problem;
        std::optional<Clock::time_point> _fetchedAt;
        std::optional<Clock::time_point> _triedAt;
        bool _wanted = false;
        std::uint64_t _fetches = 0;
        // Last: stopped and joined before the state it uses goes.
        std::jthread _fetcher;

        [[nodiscard]] Fetched fetch() const;
        void fetchWhenDue(std::stop_token const& stop);
        void wantFetch();
    };
}
