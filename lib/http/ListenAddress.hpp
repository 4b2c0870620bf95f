// Where and how an HTTP endpoint listens: a numeric IPv4 or IPv6 address, a port (0: one the kernel chooses), and the
// certificate and key files when it serves HTTPS.
#pragma once

#include "TlsFiles.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace mxl
{
    struct ListenAddress
    {
        std::string host;
        std::uint16_t port = 0;
        std::optional<TlsFiles> tls;
    };
}
