// libfabric hands back a void* context with every completion and every connection event; ours are 64-bit ids (write
// ids, connection tokens), carried in the pointer's bits rather than pointing anywhere.
#pragma once

#include <cstdint>

namespace mxl::fabrics
{
    [[nodiscard]] inline void* contextOf(std::uint64_t id) noexcept
    {
        return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id));
    }

    [[nodiscard]] inline std::uint64_t idOf(void* context) noexcept
    {
        return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(context));
    }
}
