// The gate in front of a node's HTTP endpoint (IS-10 "Resource Servers", BCP-003-02): every request to a protected
// path carries a bearer access token that the authorization server signed, that names this node in its audience, has
// not expired, and whose x-nmos-* claims permit the method at the path; anything else is refused, 401 where the token
// is missing or not valid, 403 where it does not permit the request, each with WWW-Authenticate as RFC 6750 says. The
// node's own paths outside /x-nmos (the ticket, the metrics) are mapped to an API path whose permission they need.
// Every decision is logged, naming the token's subject and client, never the token.
#pragma once

#include "AccessPolicy.hpp"
#include "AccessToken.hpp"
#include "AuthorizationServer.hpp"

#include <HttpRoutes.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace mxl::auth
{
    class RequestAuthorizer
    {
    public:
        // `ownPaths`: the node's paths outside /x-nmos that need a permission (others are open, e.g. /metrics where it
        // is not protected).
        RequestAuthorizer(std::shared_ptr<AuthorizationServer> server, std::string audience, std::map<std::string, ApiRequest> ownPaths);

        // nullopt to serve the request, else the reply that refuses it.
        [[nodiscard]] std::optional<HttpReply> refusal(HttpRequest const& request) const;

    private:
        std::shared_ptr<AuthorizationServer> _server;
        TokenExpectations _expected;
        std::map<std::string, ApiRequest> _ownPaths;

        [[nodiscard]] HttpReply refuse(HttpRequest const& request, unsigned status, char const* error, std::string const& why) const;
    };
}
