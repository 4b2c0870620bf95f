#include "GrainPattern.hpp"

namespace mxl::test
{
    namespace
    {
        // splitmix64's finaliser: neighbouring inputs give unrelated words.
        std::uint64_t mix(std::uint64_t value) noexcept
        {
            value += 0x9E3779B97F4A7C15ULL;
            value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
            value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
            return value ^ (value >> 31);
        }

        std::uint64_t patternBase(std::uint64_t index, std::uint64_t seed) noexcept
        {
            return mix(index ^ mix(seed));
        }

        // The eight bytes at offsets [8 * word, 8 * word + 8), lowest offset in the lowest byte.
        std::uint64_t patternWord(std::uint64_t base, std::size_t wordIndex) noexcept
        {
            return mix(base ^ wordIndex);
        }
    }

    void fillGrainPattern(std::uint8_t* payload, std::size_t size, std::uint64_t index, std::uint64_t seed) noexcept
    {
        auto const base = patternBase(index, seed);
        for (std::size_t offset = 0; offset < size; offset += 8)
        {
            auto word = patternWord(base, offset / 8);
            auto const end = size - offset < 8 ? size : offset + 8;
            for (auto i = offset; i < end; ++i, word >>= 8)
            {
                payload[i] = static_cast<std::uint8_t>(word);
            }
        }
    }

    std::vector<std::uint8_t> grainPattern(std::size_t size, std::uint64_t index, std::uint64_t seed)
    {
        std::vector<std::uint8_t> bytes(size);
        fillGrainPattern(bytes.data(), size, index, seed);
        return bytes;
    }

    std::uint64_t grainPatternChecksum(std::size_t size, std::uint64_t index, std::uint64_t seed)
    {
        auto const bytes = grainPattern(size, index, seed);
        return fnv1a(bytes.data(), bytes.size());
    }
}
