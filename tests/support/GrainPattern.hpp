// The tests' one grain payload pattern: every byte is a function of the grain index, a seed and its offset, so that a
// grain shifted, truncated or swapped with another never has the bytes (or the checksum) its index calls for, and
// writers and readers in any process derive the same bytes. Samples have theirs in SamplePattern. Filling and checking
// patterns is most of what a test process of a fabrics suite computes, so GrainPattern.cpp and Checksum.cpp are
// optimised in every build (tests/support/CMakeLists.txt).
#pragma once

#include "Checksum.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxl::test
{
    void fillGrainPattern(std::uint8_t* payload, std::size_t size, std::uint64_t index, std::uint64_t seed = 0) noexcept;

    std::vector<std::uint8_t> grainPattern(std::size_t size, std::uint64_t index, std::uint64_t seed = 0);

    // fnv1a of the `size` bytes of grain `index`'s pattern.
    std::uint64_t grainPatternChecksum(std::size_t size, std::uint64_t index, std::uint64_t seed = 0);
}
