// One period of the test tone (SineTone.hpp) for every channel, computed once: every channel's frequency is a multiple
// of 100 Hz, so the tone repeats after rate / gcd(rate, 100) samples exactly, and samples copied from the table are bit
// for bit the ones toneSample computes. mxl-test-source --prerendered writes audio from it.
#pragma once

#include <mxl/rational.h>

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::patterns
{
    class ToneTable
    {
    public:
        ToneTable(std::uint32_t channels, mxlRational const& sampleRate);

        // The tone period in samples.
        [[nodiscard]] std::uint64_t periodSamples() const noexcept
        {
            return _period;
        }

        // Fills `samples` with the tone of `channel` from absolute index `firstSampleIndex` on, as fillTone does.
        void fill(std::span<float> samples, std::uint32_t channel, std::uint64_t firstSampleIndex) const noexcept;
        void fill(std::span<double> samples, std::uint32_t channel, std::uint64_t firstSampleIndex) const noexcept;

    private:
        std::uint64_t _period;
        // Channel-major: channel c's period starts at c * _period.
        std::vector<double> _samples;

        template <typename Sample>
        void copy(std::span<Sample> samples, std::uint32_t channel, std::uint64_t firstSampleIndex) const noexcept;
    };
}
