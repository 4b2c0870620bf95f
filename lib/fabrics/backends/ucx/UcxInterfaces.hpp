// The interfaces the UCX backend offers: one tcp entry per IPv4 or IPv6 address of an interface that is up (node = the
// address) and one shm entry (node = the host name); and the device that owns a tcp node, which the domain hands to UCX
// as NET_DEVICES (with the node's address family, which UCX's tcp otherwise picks by its own priority, IPv4 first).
#pragma once

#include <mxl/fabrics.h>

#include <functional>
#include <string>

namespace mxl::fabrics::ucx
{
    void forEachUcxInterface(mxlFabricsInterfaceConfig const* query, std::function<void(mxlFabricsInterfaceConfig const&)> const& emit);

    struct TcpNode
    {
        std::string address;
        // The interface that has the address ("lo" for 127.0.0.1 and ::1).
        std::string device;
        bool ipv6;
    };

    // `node` as an IPv4 or IPv6 address and the interface that has it: INVALID_ARG when it is neither, NO_FABRIC when
    // no interface that is up has it.
    [[nodiscard]] TcpNode tcpNodeOf(char const* node);
}
