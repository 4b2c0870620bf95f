// The interfaces the UCX backend offers: one tcp entry per IPv4 interface that is up (node = its address) and one shm
// entry (node = the host name); and the device that owns a tcp node, which the domain hands to UCX as NET_DEVICES.
#pragma once

#include <mxl/fabrics.h>

#include <functional>
#include <string>

namespace mxl::fabrics::ucx
{
    void forEachUcxInterface(mxlFabricsInterfaceConfig const* query, std::function<void(mxlFabricsInterfaceConfig const&)> const& emit);

    // The name of the interface whose IPv4 address is `node` ("lo" for 127.0.0.1). NO_FABRIC when none has it.
    [[nodiscard]] std::string deviceOwning(char const* node);
}
