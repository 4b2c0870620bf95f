// Where an HTTP endpoint listens: a numeric IPv4 or IPv6 address and a port (0: one the kernel chooses).
#pragma once

#include <cstdint>
#include <string>

namespace mxl
{
    struct ListenAddress
    {
        std::string host;
        std::uint16_t port = 0;
    };
}
