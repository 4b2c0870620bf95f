// Where a range of samples lies in the planar channel rings (an interop contract): sample s of channel c
// is at byte c·L·w + ((s − 1) mod L)·w, and a range (index, count) is the `count` samples ending at `index`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxl
{
    struct SampleRing
    {
        std::uint8_t* channels;
        std::uint32_t channelCount;
        // L, samples per channel ring.
        std::uint32_t bufferLength;
        std::uint32_t sampleWordBytes;

        struct Range
        {
            // fragments[0] runs from `firstBytes` at `first` to at most the end of the ring, fragments[1] from its start.
            std::uint8_t* first;
            std::size_t firstBytes;
            std::uint8_t* second;
            std::size_t secondBytes;
            std::size_t strideBytes;
        };

        // `count` must not exceed bufferLength.
        [[nodiscard]] Range range(std::uint64_t index, std::size_t count) const noexcept
        {
            // (index − count) mod L without wrapping below zero for small indices.
            auto const start = (index % bufferLength + bufferLength - count) % bufferLength;
            auto const firstSamples = count < bufferLength - start ? count : bufferLength - start;
            return Range{channels + start * sampleWordBytes, firstSamples * sampleWordBytes, channels,
                         (count - firstSamples) * sampleWordBytes, std::size_t{bufferLength} * sampleWordBytes};
        }

        // Zeroes samples first..last (inclusive, at most one ring) of every channel.
        void zero(std::uint64_t first, std::uint64_t last) const noexcept;
    };
}
