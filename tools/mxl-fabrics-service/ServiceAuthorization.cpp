#include "ServiceAuthorization.hpp"

#include "ServiceLog.hpp"

#include <ClientCredentials.hpp>
#include <HttpClient.hpp>
#include <RequestAuthorizer.hpp>

#include <fmt/format.h>

namespace mxl::service
{
    namespace
    {
        constexpr std::chrono::seconds authorizationServerTimeout{2};

        // A service reads one configuration: its endpoint and its client share one server and one key cache. The server
        // lives while they use it, so that its fetching thread ends before the process exits: OpenSSL cleans up at exit,
        // and a TLS exchange still running then would leak what it holds.
        std::shared_ptr<auth::AuthorizationServer> serverOf(Authorization const& settings)
        {
            static std::weak_ptr<auth::AuthorizationServer> shared;
            auto server = shared.lock();
            if (!server)
            {
                server = std::make_shared<auth::AuthorizationServer>(settings.issuer, authorizationServerTimeout);
                shared = server;
            }
            return server;
        }
    }

    ClientTokens::~ClientTokens()
    {
        setBearerTokenSource({});
    }

    ClientTokens::ClientTokens(ServiceConfig const& config)
    {
        if (!config.authorization || config.authorization->clientId.empty())
        {
            return;
        }
        auto const& settings = *config.authorization;
        auto tokens = std::make_shared<auth::ClientCredentials>(serverOf(settings), settings.clientId, settings.clientSecret,
                                                                "registration query connection node", authorizationServerTimeout);
        setBearerTokenSource([tokens](std::string const&) { return tokens->bearer(); });
        log::info("auth: https:// requests carry access tokens of client '{}' from '{}'", settings.clientId, settings.issuer);
    }

    nmos::Node::GateOf authorizationGate(ServiceConfig const& config, nmos::Role role)
    {
        if (!config.authorization)
        {
            return {};
        }
        auto const& settings = *config.authorization;
        auto server = serverOf(settings);
        // The first fetch is waited for here, where no request waits on it; the server logs its outcome.
        server->awaitKeys(2 * authorizationServerTimeout);
        log::info("auth: requests need access tokens of '{}' for audience '{}'{}", settings.issuer, settings.audience,
                  settings.protectMetrics ? ", /metrics included" : " (/metrics open)");
        return [server, settings, role](std::string const& endpointId) -> HttpGate
        {
            std::map<std::string, auth::ApiRequest> ownPaths;
            if (role == nmos::Role::Receiver)
            {
                ownPaths["/ticket"] = {"connection", fmt::format("single/receivers/{}/staged", endpointId), auth::Access::Write, false};
            }
            if (settings.protectMetrics)
            {
                ownPaths["/metrics"] = {"node", "self", auth::Access::Read, false};
            }
            auto authorizer = std::make_shared<auth::RequestAuthorizer>(server, settings.audience, std::move(ownPaths));
            return [authorizer](HttpRequest const& request) { return authorizer->refusal(request); };
        };
    }
}
