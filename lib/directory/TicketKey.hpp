// Where a facility's tickets live in etcd, and how services and tools name them.
//
// Key layout: /mxl/tickets/<domain>/<flow id>, where <domain> is the facility's name for the MXL domain the target
// receives into (the services default to the last component of the domain path, e.g. "studio-a" for
// /dev/shm/mxl/studio-a) and <flow id> the flow's UUID. The value is the ticket's JSON text, exactly as the target's
// ticket file and /ticket serve it, and the key lives with the target's lease.
//
// A ticket source names a key as etcd://<host>:<port><key>, e.g.
// etcd://192.0.2.5:2379/mxl/tickets/studio-a/7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mxl::directory
{
    inline constexpr std::string_view ticketKeyPrefix = "/mxl/tickets/";
    inline constexpr std::string_view etcdScheme = "etcd://";

    // Throws DirectoryError when the domain name is empty or holds a '/'.
    std::string ticketKey(std::string_view domainName, std::string_view flowId);

    struct EtcdLocation
    {
        // host:port
        std::string endpoint;
        // Starts with '/'.
        std::string key;
    };

    [[nodiscard]] bool isEtcdUrl(std::string_view text) noexcept;

    // Throws DirectoryError naming the text when it is not etcd://host:port/key (the key may be a prefix ending in '/').
    EtcdLocation parseEtcdUrl(std::string_view url);
}
