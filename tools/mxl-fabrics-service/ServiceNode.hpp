// The service's NMOS node on http_listen (lib/nmos/Node.hpp): what it cannot do is a configuration error naming the
// setting, the journal says where it listens, and it registers where nmos_registry is set.
#pragma once

#include "ServiceConfig.hpp"

#include <Node.hpp>

#include <map>
#include <memory>
#include <string>

namespace mxl::service
{
    // Throws ConfigError naming config.origin and the setting.
    std::unique_ptr<nmos::Node> startServiceNode(ServiceConfig const& config, nmos::Role role, std::string const& flowDefinition,
                                                 bool masterEnable, nmos::ConnectionApi::ParamsOf params,
                                                 std::map<std::string, HttpResource> resources);

    // On SIGHUP: the node's HTTPS certificate and key read again, or the pair in use kept where they cannot be used; the
    // journal says which. `node` may be null (no http_listen).
    void reloadCertificate(nmos::Node* node);
}
