// Which local fabrics interface the demo sets up on: the user's provider and node when given, otherwise the best one
// this host has (efa > verbs > tcp > shm).
#pragma once

#include <client/FabricsInterfaceChoice.hpp>

#include <mxl/fabrics.h>

#include <string>

namespace mxl::demo
{
    using ChosenInterface = client::FabricsInterface;
    using client::EndpointRole;
    using client::interfaceConfig;

    // `provider` ANY = automatic; `node`/`service` empty = see EndpointRole. Throws ToolError(Usage) for a service
    // that is not a port, or when no interface matches; prints "Selected interface: ...".
    ChosenInterface chooseInterface(mxlFabricsInstance fabrics, mxlFabricsProvider provider, std::string const& node,
                                    std::string const& service, EndpointRole role);
}
