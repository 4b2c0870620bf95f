// Name-based UUIDs (RFC 4122 version 5: SHA-1 of a namespace and a name), so that a service's NMOS resources keep their
// ids across restarts: a controller's connections and a registry's records survive a service restart.
#pragma once

#include <string>
#include <string_view>

namespace mxl::nmos
{
    // The version-5 UUID of `name` in mxl's own namespace, lower-case 8-4-4-4-12.
    std::string nameUuid(std::string_view name);
}
