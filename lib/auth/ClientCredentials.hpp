// The tools' own access tokens (IS-10 "Clients"): the OAuth 2.0 client credentials grant with client_secret_basic at the
// authorization server's token endpoint, for the calls a service makes to secured registries, targets and initiators.
// The secret goes to an https:// token endpoint only, whatever the server's metadata names. A token is kept until it is
// past half its lifetime and then requested again (IS-10 tokens live 30 s to an hour; "expires_in" is taken up to a
// day); a server that cannot give one is asked again at most every few seconds, and the log says why once per reason.
// While one caller renews the token, the others use the one held, or, where it has expired, wait for the renewal.
#pragma once

#include "AuthorizationServer.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

namespace mxl::auth
{
    class ClientCredentials
    {
    public:
        // `scope`: the APIs the tokens are for, space-separated ("registration connection").
        ClientCredentials(std::shared_ptr<AuthorizationServer> server, std::string clientId, std::string clientSecret, std::string scope,
                          std::chrono::milliseconds timeout);

        // A token that has not expired, or "" where none can be had.
        std::string bearer();

    private:
        using Clock = std::chrono::steady_clock;

        std::shared_ptr<AuthorizationServer> _server;
        std::string _clientId;
        std::string _clientSecret;
        std::string _scope;
        std::chrono::milliseconds _timeout;
        std::mutex _mutex;
        std::condition_variable _renewed;
        // One caller at a time asks the server, without the mutex: the others do not wait on it while their token holds.
        bool _renewing = false;
        std::string _token;
        Clock::time_point _expiresAt;
        Clock::time_point _renewAt;
        std::optional<Clock::time_point> _triedAt;
        std::string _lastProblem;

        struct Grant
        {
            std::string token;
            std::chrono::seconds lifetime;
        };

        // A token and its lifetime, or why none was given.
        [[nodiscard]] std::variant<Grant, std::string> request() const;
        // Under _mutex: keeps a grant, or logs the problem once per reason.
        void take(std::variant<Grant, std::string> outcome);
    };

    // RFC 3986 unreserved characters kept, every other byte %XX (form bodies and client_secret_basic's parts).
    [[nodiscard]] std::string formEncode(std::string_view text);
}
