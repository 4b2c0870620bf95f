// The tools' own access tokens (IS-10 "Clients"): the OAuth 2.0 client credentials grant with client_secret_basic at the
// authorization server's token endpoint, for the calls a service makes to secured registries, targets and initiators.
// The secret goes to an https:// token endpoint only, whatever the server's metadata names. A token is kept until it is
// past half its lifetime and then requested again (IS-10 tokens live 30 s to an hour; "expires_in" is taken up to a
// day); a server that cannot give one is asked again at most every few seconds, and the log says why once per reason.
#pragma once

#include "AuthorizationServer.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

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
        std::string _token;
        Clock::time_point _expiresAt;
        Clock::time_point _renewAt;
        std::optional<Clock::time_point> _triedAt;
        std::string _lastProblem;

        // Under _mutex: "" or why no token was given.
        std::string request();
    };

    // RFC 3986 unreserved characters kept, every other byte %XX (form bodies and client_secret_basic's parts).
    [[nodiscard]] std::string formEncode(std::string_view text);
}
