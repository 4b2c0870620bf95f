// FNV-1a 64: cheap, deterministic payload fingerprints for comparing bytes across processes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxl::test
{
    std::uint64_t fnv1a(void const* data, std::size_t size, std::uint64_t hash = 0xcbf29ce484222325ULL) noexcept;
}
