// Deterministic payload bytes for grain or sample range `index`: writers and readers in any process derive the same
// bytes, so a reader can check a payload by checksum alone.
#pragma once

#include "Checksum.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxl::test
{
    inline void fillPattern(std::uint8_t* bytes, std::size_t size, std::uint64_t index) noexcept
    {
        auto state = index * 0x9e3779b97f4a7c15ULL + 1;
        for (std::size_t i = 0; i < size; ++i)
        {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bytes[i] = static_cast<std::uint8_t>(state);
        }
    }

    inline std::uint64_t patternChecksum(std::size_t size, std::uint64_t index)
    {
        std::string bytes(size, '\0');
        fillPattern(reinterpret_cast<std::uint8_t*>(bytes.data()), size, index);
        return fnv1a(bytes.data(), size);
    }
}
