#include "SineTone.hpp"

#include <cmath>
#include <numbers>

namespace mxl::patterns
{
    namespace
    {
        __extension__ using Uint128 = unsigned __int128;

        template <typename Sample>
        void fill(std::span<Sample> samples, std::uint32_t channel, std::uint64_t firstSampleIndex, mxlRational const& sampleRate) noexcept
        {
            for (std::size_t i = 0; i < samples.size(); ++i)
            {
                samples[i] = static_cast<Sample>(toneSample(channel, firstSampleIndex + i, sampleRate));
            }
        }
    }

    double toneSample(std::uint32_t channel, std::uint64_t sampleIndex, mxlRational const& sampleRate) noexcept
    {
        // Phase in cycles = index x f / rate = index x (100 (c + 1)) x den / num. Only its fractional part matters,
        // and taking it in exact integer arithmetic keeps the tone clean at indices near 2^50 where a double product
        // would have lost every fractional digit.
        if (sampleRate.numerator <= 0 || sampleRate.denominator <= 0)
        {
            return 0.0;
        }
        auto const numerator = static_cast<Uint128>(sampleRate.numerator);
        auto const cyclesTimesNumerator = static_cast<Uint128>(sampleIndex) * (100U * (channel + 1U)) % numerator *
                                          static_cast<Uint128>(sampleRate.denominator) % numerator;
        auto const fraction = static_cast<double>(cyclesTimesNumerator) / static_cast<double>(sampleRate.numerator);
        return toneAmplitude * std::sin(2.0 * std::numbers::pi * fraction);
    }

    void fillTone(std::span<float> samples, std::uint32_t channel, std::uint64_t firstSampleIndex, mxlRational const& sampleRate) noexcept
    {
        fill(samples, channel, firstSampleIndex, sampleRate);
    }

    void fillTone(std::span<double> samples, std::uint32_t channel, std::uint64_t firstSampleIndex, mxlRational const& sampleRate) noexcept
    {
        fill(samples, channel, firstSampleIndex, sampleRate);
    }
}
