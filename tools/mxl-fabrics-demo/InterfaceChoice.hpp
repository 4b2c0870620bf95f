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

    // `providerName` empty = automatic; `node`/`service` empty = the interface's own. Throws DemoError(BadInput) for an
    // unknown provider, a service that is not a port, or when no interface matches; prints "Selected interface: ...".
    ChosenInterface chooseInterface(mxlFabricsInstance fabrics, std::string const& providerName, std::string const& node,
                                    std::string const& service);

    // The setup configuration for a chosen interface; it points into `chosen`, which must outlive it.
    mxlFabricsInterfaceConfig interfaceConfig(ChosenInterface const& chosen);
}
