#include "ToneTable.hpp"

#include "SineTone.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace mxl::patterns
{
    namespace
    {
        // The phase of sample n is n x 100 (c + 1) x den / num cycles: whole cycles every num / gcd(num, 100 den) samples.
        std::uint64_t tonePeriod(mxlRational const& sampleRate)
        {
            if (sampleRate.numerator <= 0 || sampleRate.denominator <= 0)
            {
                throw std::invalid_argument{"a tone table needs a positive sample rate"};
            }
            auto const numerator = static_cast<std::uint64_t>(sampleRate.numerator);
            return numerator / std::gcd(numerator, std::uint64_t{100} * static_cast<std::uint64_t>(sampleRate.denominator));
        }
    }

    ToneTable::ToneTable(std::uint32_t channels, mxlRational const& sampleRate)
        : _period{tonePeriod(sampleRate)}
        , _samples(_period * channels)
    {
        for (std::uint32_t channel = 0; channel < channels; ++channel)
        {
            for (std::uint64_t index = 0; index < _period; ++index)
            {
                _samples[channel * _period + index] = toneSample(channel, index, sampleRate);
            }
        }
    }

    template <typename Sample>
    void ToneTable::copy(std::span<Sample> samples, std::uint32_t channel, std::uint64_t firstSampleIndex) const noexcept
    {
        auto const* const period = _samples.data() + channel * _period;
        auto position = firstSampleIndex % _period;
        std::size_t done = 0;
        while (done < samples.size())
        {
            auto const run = std::min<std::uint64_t>(samples.size() - done, _period - position);
            std::transform(period + position, period + position + run, samples.begin() + static_cast<std::ptrdiff_t>(done),
                           [](double value) { return static_cast<Sample>(value); });
            done += run;
            position = 0;
        }
    }

    void ToneTable::fill(std::span<float> samples, std::uint32_t channel, std::uint64_t firstSampleIndex) const noexcept
    {
        copy(samples, channel, firstSampleIndex);
    }

    void ToneTable::fill(std::span<double> samples, std::uint32_t channel, std::uint64_t firstSampleIndex) const noexcept
    {
        copy(samples, channel, firstSampleIndex);
    }
}
