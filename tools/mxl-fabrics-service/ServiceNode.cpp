#include "ServiceNode.hpp"

#include "ServiceAuthorization.hpp"
#include "ServiceLog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <vector>

namespace mxl::service
{
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
            node = std::make_unique<nmos::Node>(role, flowDefinition, config.domain, listen, masterEnable, std::move(params),
                                                std::move(resources), authorizationGate(config, role));
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
