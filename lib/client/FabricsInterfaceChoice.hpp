// Choosing the local fabrics interface a tool sets up on: always an entry mxlFabricsGetInterfaces reported, so that the
// provider, capabilities and concrete node are ones the library can open, with the node and service the user asked for.
// Header-only, like FabricsInterfaces.hpp, so that programs without fabrics never link libmxl-fabrics.
#pragma once

#include "FabricsInterfaces.hpp"

#include <mxl/fabrics.h>

#include <string>
#include <vector>

namespace mxl::client
{
    enum class EndpointRole
    {
        // Binds to the interface's own node unless one is given: the ticket must carry an address peers can reach.
        Target,
        // Binds only where the user says: the kernel picks the source address that routes to each target.
        Initiator,
    };

    // An shm node is a name of our choosing, not an address the interface list could contain.
    [[nodiscard]] inline bool nodeIsName(mxlFabricsProvider provider) noexcept
    {
        return provider == MXL_FABRICS_PROVIDER_SHM;
    }

    // The providers whose service is a port number.
    [[nodiscard]] inline bool usesPortNumbers(mxlFabricsProvider provider) noexcept
    {
        return provider == MXL_FABRICS_PROVIDER_TCP || provider == MXL_FABRICS_PROVIDER_VERBS;
    }

    // The interfaces of `provider` (ANY = all) that `node` (empty = any) can bind to, in the library's order.
    inline std::vector<FabricsInterface> interfacesMatching(mxlFabricsInstance fabrics, mxlFabricsProvider provider,
                                                            std::string const& node)
    {
        return listFabricsInterfaces(fabrics, provider, nodeIsName(provider) ? std::string{} : node);
    }

    // `entry` with the user's node and service; an empty node is resolved as EndpointRole says. An shm endpoint is
    // named after its node and service: left unnamed, the library picks a name unique to the process, so that several
    // targets and initiators can share a host. A service given without a node takes the interface's node, as the SDK's
    // demo does (`-p shm -s 28343` names the endpoint "<host>:28343").
    inline FabricsInterface chooseEntry(FabricsInterface entry, std::string const& node, std::string const& service, EndpointRole role)
    {
        bool const bindToInterface = (role == EndpointRole::Target && !nodeIsName(entry.provider)) || !service.empty();
        if (!node.empty() || !bindToInterface)
        {
            entry.node = node;
        }
        entry.service = service;
        return entry;
    }
}
