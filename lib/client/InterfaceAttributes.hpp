// A fabrics interface's provider attributes as people read them: the link speed in gbit/s, whole numbers without the
// ".0" the library's JSON doubles carry, strings without quotes.
#pragma once

#include "FabricsInterfaces.hpp"

#include <string>
#include <vector>

namespace mxl::client
{
    struct InterfaceAttribute
    {
        std::string key;
        std::string text;
    };

    // In key order; none where the library reported none, or no JSON object.
    [[nodiscard]] std::vector<InterfaceAttribute> interfaceAttributes(FabricsInterface const& interface);

    // The provider's device_name, or "<none>".
    [[nodiscard]] std::string interfaceDevice(FabricsInterface const& interface);

    // `interface` under `name` as mxl-fabrics-info -v prints it: a line naming it, then indented lines for the provider,
    // node, service, max message size, capabilities and each attribute.
    [[nodiscard]] std::string interfaceDescription(std::string const& name, FabricsInterface const& interface);
}
