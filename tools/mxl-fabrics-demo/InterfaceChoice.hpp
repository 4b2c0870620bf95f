// Which local fabrics interface the demo sets up on: the user's provider and node when given, otherwise the best one
// this host has (efa > verbs > tcp > shm), always an entry mxlFabricsGetInterfaces reported so that the provider,
// capabilities and concrete node match what the library can open.
#pragma once

#include <mxl/fabrics.h>

#include <cstdint>
#include <string>

namespace mxl::demo
{
    struct ChosenInterface
    {
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        std::uint64_t capabilityFlags = 0;
        std::uint64_t maxMessageSize = 0;
        std::string node;
        std::string service;
    };

    enum class EndpointRole
    {
        // Binds to the chosen interface's node unless -n names one: the ticket must carry an address peers can reach.
        Target,
        // Binds only where -n says: the kernel picks the source address that routes to each target.
        Initiator,
    };

    // `provider` ANY = automatic; `node`/`service` empty = see EndpointRole. Throws ToolError(Usage) for a service
    // that is not a port, or when no interface matches; prints "Selected interface: ...".
    ChosenInterface chooseInterface(mxlFabricsInstance fabrics, mxlFabricsProvider provider, std::string const& node,
                                    std::string const& service, EndpointRole role);

    // The setup configuration for a chosen interface; it points into `chosen`, which must outlive it.
    mxlFabricsInterfaceConfig interfaceConfig(ChosenInterface const& chosen);
}
