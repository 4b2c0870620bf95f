// Deterministic grain payloads: every byte is a function of the grain index and its offset, so that a grain shifted,
// truncated or swapped with another never has the checksum its index calls for.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxl::test
{
    void fillGrainPattern(std::uint8_t* payload, std::uint64_t grainIndex, std::size_t size) noexcept;
}
