// A TCP port on 127.0.0.1 that the kernel hands out as free now, for a server (etcd, a fabrics target) that binds it
// moments later.
#pragma once

#include <cstdint>

namespace mxl::test
{
    // Throws std::runtime_error when the kernel has none to give.
    [[nodiscard]] std::uint16_t freeLoopbackPort();
}
