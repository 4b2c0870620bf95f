// The fabrics interface a service sets up on: the configured provider and node checked against what
// mxlFabricsGetInterfaces reports, so that the capabilities passed to setup are ones the library can honour.
#pragma once

#include "ServiceConfig.hpp"

#include <mxl/fabrics.h>

#include <cstdint>
#include <string>

namespace mxl::service
{
    struct ServiceInterface
    {
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_TCP;
        std::uint64_t capabilityFlags = 0;
        std::uint64_t maxMessageSize = 0;
        std::string node;
        std::string service;

        [[nodiscard]] bool blocking() const noexcept
        {
            return (capabilityFlags & MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS) != 0;
        }

        // Points into this object, which must outlive the returned value.
        [[nodiscard]] mxlFabricsInterfaceConfig setupConfig() const;
    };

    // Targets bind to the interface's own address when no node is configured (the ticket must carry an address peers
    // reach); initiators leave the source address to the kernel. Throws ConfigError naming `node` (or `provider`) when
    // this host has no such interface.
    ServiceInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config);
}
