// The tests' one grain payload pattern: every byte is a function of the grain index, a seed and its offset, so that a
// grain shifted, truncated or swapped with another never has the bytes (or the checksum) its index calls for, and
// writers and readers in any process derive the same bytes. Samples have theirs in SamplePattern.
#pragma once

#include "Checksum.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxl::test
{
    namespace grain_pattern
    {
        // splitmix64's finaliser: neighbouring inputs give unrelated words.
        constexpr std::uint64_t mix(std::uint64_t value) noexcept
        {
            value += 0x9E3779B97F4A7C15ULL;
            value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
            value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
            return value ^ (value >> 31);
        }

        constexpr std::uint64_t base(std::uint64_t index, std::uint64_t seed) noexcept
        {
            return mix(index ^ mix(seed));
        }

        // The eight bytes at offsets [8 * word, 8 * word + 8), lowest offset in the lowest byte.
        constexpr std::uint64_t word(std::uint64_t base, std::size_t word) noexcept
        {
            return mix(base ^ word);
        }
    }

    inline void fillGrainPattern(std::uint8_t* payload, std::size_t size, std::uint64_t index, std::uint64_t seed = 0) noexcept
    {
        auto const base = grain_pattern::base(index, seed);
        for (std::size_t offset = 0; offset < size; offset += 8)
        {
            auto word = grain_pattern::word(base, offset / 8);
            for (auto i = offset; i < std::min(offset + 8, size); ++i, word >>= 8)
            {
                payload[i] = static_cast<std::uint8_t>(word);
            }
        }
    }

    inline std::vector<std::uint8_t> grainPattern(std::size_t size, std::uint64_t index, std::uint64_t seed = 0)
    {
        std::vector<std::uint8_t> bytes(size);
        fillGrainPattern(bytes.data(), size, index, seed);
        return bytes;
    }

    // fnv1a of the `size` bytes of grain `index`'s pattern.
    inline std::uint64_t grainPatternChecksum(std::size_t size, std::uint64_t index, std::uint64_t seed = 0)
    {
        auto const bytes = grainPattern(size, index, seed);
        return fnv1a(bytes.data(), bytes.size());
    }
}
