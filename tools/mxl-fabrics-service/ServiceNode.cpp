#include "ServiceNode.hpp"

#include "ServiceLog.hpp"

#include <RequestAuthorizer.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <vector>

namespace mxl::service
{
    namespace
    {
        constexpr std::chrono::seconds authorizationServerTimeout{2};

        // The gate of IS-10 authorization where auth_server is set: a target's ticket needs the permission to connect its
        // receiver, since whoever holds it can write into the flow.
        nmos::Node::GateOf authorizationGate(ServiceConfig const& config, nmos::Role role)
        {
            if (!config.authorization)
            {
                return {};
            }
            auto const& settings = *config.authorization;
            auto server = std::make_shared<auth::AuthorizationServer>(settings.issuer, authorizationServerTimeout);
            if (auto const keys = server->keysFor({}); auto const* problem = std::get_if<std::string>(&keys))
            {
                log::warning("auth: {}; requests are refused until they are", *problem);
            }
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

    std::unique_ptr<nmos::Node> startServiceNode(ServiceConfig const& config, nmos::Role role, std::string const& flowDefinition,
                                                 bool masterEnable, nmos::ConnectionApi::ParamsOf params,
                                                 std::map<std::string, HttpResource> resources)
    {
        auto const& listen = *config.http;
        std::vector<std::string> paths;
        for (auto const& entry : resources)
        {
            paths.push_back(entry.first);
        }
        std::unique_ptr<nmos::Node> node;
        try
        {
            node = std::make_unique<nmos::Node>(role, flowDefinition, listen, masterEnable, std::move(params), std::move(resources),
                                                authorizationGate(config, role));
        }
        catch (ListenError const& error)
        {
            throw ConfigError{
                fmt::format("{}: key 'http_listen' value '{}:{}': {}", config.origin, listen.host, listen.port, error.what())};
        }
        catch (TlsFilesError const& error)
        {
            throw ConfigError{fmt::format("{}: keys 'http_tls_certificate' and 'http_tls_key': {}", config.origin, error.what())};
        }
        catch (std::invalid_argument const& error)
        {
            throw ConfigError{fmt::format("{}: {}", config.origin, error.what())};
        }
        log::info("http: listening on {}:{} ({}, /x-nmos/node/v1.3/, /x-nmos/connection/v1.1/ and v1.2/)", listen.host, node->port(),
                  fmt::join(paths, ", "));
        if (listen.tls)
        {
            log::info("http: serving HTTPS (TLS 1.2 and 1.3) with the certificate of {} from '{}'", node->http().tlsDescription(),
                      listen.tls->certificate);
        }
        // After that line, so that the registration's own lines follow the port they concern.
        if (config.nmosRegistry)
        {
            node->registerWith(*config.nmosRegistry);
        }
        return node;
    }

    void reloadCertificate(nmos::Node* node)
    {
        if (node == nullptr || !node->http().secure())
        {
            log::info("SIGHUP: nothing to reload (no HTTPS endpoint)");
            return;
        }
        try
        {
            log::info("SIGHUP: HTTPS now uses the certificate of {}", node->http().reloadTls());
        }
        catch (TlsFilesError const& error)
        {
            log::warning("SIGHUP: HTTPS keeps the certificate in use ({}): {}", node->http().tlsDescription(), error.what());
        }
    }
}
