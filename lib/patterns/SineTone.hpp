// The test tone: channel c carries a sine of 100 Hz x (c + 1) at amplitude 0.5. A sample's value depends only on its
// absolute index (phase 0 at index 0, the TAI epoch), so batches of any size join without phase jumps and every
// process that writes the same flow writes the same samples.
#pragma once

#include <mxl/rational.h>

#include <cstdint>
#include <span>

namespace mxl::patterns
{
    inline constexpr double toneAmplitude = 0.5;

    constexpr double toneFrequencyHz(std::uint32_t channel) noexcept
    {
        return 100.0 * (channel + 1);
    }

    // The value of absolute sample `sampleIndex` of `channel` at `sampleRate` (an integral or rational rate).
    double toneSample(std::uint32_t channel, std::uint64_t sampleIndex, mxlRational const& sampleRate) noexcept;

    // Fills `samples` with the tone from absolute index `firstSampleIndex` on.
    void fillTone(std::span<float> samples, std::uint32_t channel, std::uint64_t firstSampleIndex, mxlRational const& sampleRate) noexcept;
    void fillTone(std::span<double> samples, std::uint32_t channel, std::uint64_t firstSampleIndex, mxlRational const& sampleRate) noexcept;
}
