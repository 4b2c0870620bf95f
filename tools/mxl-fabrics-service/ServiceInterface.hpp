// The fabrics interface a service sets up on: the configured provider and node checked against what
// mxlFabricsGetInterfaces reports, so that the capabilities passed to setup are ones the library can honour.
#pragma once

#include "ServiceConfig.hpp"

#include <client/FabricsInterfaceChoice.hpp>

#include <mxl/fabrics.h>

#include <string>
#include <string_view>

namespace mxl::service
{
    // Targets bind to the interface's own address when no node is configured (the ticket must carry an address peers
    // reach) and to service "0" (one the provider picks) when none is configured; initiators leave the source address
    // to the kernel. Throws ConfigError naming `node` (or `provider`) when this host has no such interface.
    client::FabricsInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config);

    // The same for a node other than config.node (a redundant path's), which messages name as key `key`.
    client::FabricsInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config, std::string const& node,
                                             std::string_view key);
}
