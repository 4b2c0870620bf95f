// Random 64-bit values for ids and nonces that must differ between processes and incarnations (target ids and epochs,
// memory-region keys), not for anything secret.
#pragma once

#include <cstdint>

namespace mxl
{
    // Thread-safe; seeded once per process from std::random_device.
    [[nodiscard]] std::uint64_t randomId();
}
