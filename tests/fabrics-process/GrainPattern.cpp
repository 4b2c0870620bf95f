#include "GrainPattern.hpp"

#include <algorithm>

namespace mxl::test
{
    namespace
    {
        // splitmix64: neighbouring inputs give unrelated outputs, so a grain shifted by a byte or swapped with its
        // neighbour never checksums right.
        std::uint64_t mix(std::uint64_t value) noexcept
        {
            value += 0x9E3779B97F4A7C15ULL;
            value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
            value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
            return value ^ (value >> 31);
        }
    }

    void fillGrainPattern(std::uint8_t* payload, std::uint64_t grainIndex, std::size_t size) noexcept
    {
        auto const seed = mix(grainIndex);
        for (std::size_t offset = 0; offset < size; offset += 8)
        {
            auto word = mix(seed ^ offset);
            for (std::size_t i = offset; i < std::min(offset + 8, size); ++i, word >>= 8)
            {
                payload[i] = static_cast<std::uint8_t>(word);
            }
        }
    }
}
