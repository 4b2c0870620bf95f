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
    // Throws ConfigError naming config.origin.
    std::unique_ptr<nmos::Node> startServiceNode(ServiceConfig const& config, nmos::Role role, std::string const& flowDefinition,
                                                 bool masterEnable, nmos::ConnectionApi::ParamsOf params,
                                                 std::map<std::string, HttpResource> resources);
}
