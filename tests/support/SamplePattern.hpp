// The samples the audio tests write and expect: every word derived from (seed, channel, absolute sample index), so
// that a sample landing in the wrong channel, at the wrong position or from the wrong batch is seen. Public flow API
// only, so that process tests can use it on any domain.
#pragma once

#include <mxl/flow.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace mxl::test
{
    // Sample `index` is the last of the range (index, 1): the flow API's inclusive-end convention.
    [[nodiscard]] std::uint32_t sampleWord(std::uint32_t seed, std::uint32_t channel, std::uint64_t index) noexcept;

    // Writes the range (headIndex, count) of every channel and commits it. False when the writer refused.
    bool writePatternSamples(mxlFlowWriter writer, std::uint64_t headIndex, std::size_t count, std::uint32_t seed);

    // How many of the range's words (all channels) differ from the pattern; nullopt when the range is not readable.
    [[nodiscard]] std::optional<std::size_t> patternMismatches(mxlFlowReader reader, std::uint64_t headIndex, std::size_t count,
                                                               std::uint32_t seed);

    // How many of the range's words (all channels) are not silence (0); nullopt when the range is not readable.
    [[nodiscard]] std::optional<std::size_t> nonSilentWords(mxlFlowReader reader, std::uint64_t headIndex, std::size_t count);
}
