#include "AudioPicture.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace mxl::tools::info
{
    namespace
    {
        constexpr std::array<std::uint8_t, 3> background{24, 24, 24};
        constexpr std::array<std::uint8_t, 3> zeroLine{90, 90, 90};
        constexpr std::array<std::uint8_t, 3> envelope{40, 200, 60};
        constexpr std::array<std::uint8_t, 3> peakMark{230, 40, 40};

        void paint(Picture& picture, std::uint32_t x, std::uint32_t y, std::array<std::uint8_t, 3> const& colour) noexcept
        {
            std::copy(colour.begin(), colour.end(), picture.at(x, y));
        }
    }

    std::uint32_t AudioPictureLayout::rowOf(std::uint32_t channel, float level) const noexcept
    {
        auto const half = static_cast<double>(stripHeight / 2);
        auto const offset = std::lround(std::clamp(static_cast<double>(level), -1.0, 1.0) * half);
        return channel * (stripHeight + 1) + static_cast<std::uint32_t>(static_cast<long>(half) - offset);
    }

    float peakOf(std::span<float const> samples) noexcept
    {
        float peak = 0.0F;
        for (auto const sample : samples)
        {
            peak = std::max(peak, std::fabs(sample));
        }
        return peak;
    }

    double decibelsFullScale(float peak) noexcept
    {
        return peak > 0.0F ? 20.0 * std::log10(static_cast<double>(peak)) : -std::numeric_limits<double>::infinity();
    }

    Picture pictureOfAudio(std::vector<std::vector<float>> const& channels, AudioPictureLayout const& layout)
    {
        auto const count = static_cast<std::uint32_t>(channels.size());
        Picture picture{layout.width, count * (layout.stripHeight + 1) - 1, 3};
        for (std::uint32_t y = 0; y < picture.height; ++y)
        {
            for (std::uint32_t x = 0; x < picture.width; ++x)
            {
                paint(picture, x, y, background);
            }
        }
        for (std::uint32_t channel = 0; channel < count; ++channel)
        {
            auto const& samples = channels[channel];
            auto const peak = peakOf(samples);
            for (std::uint32_t x = 0; x < layout.width; ++x)
            {
                auto const first = samples.size() * x / layout.width;
                auto const last = std::max(first + 1, samples.size() * (x + 1) / layout.width);
                auto const [low, high] = std::minmax_element(samples.begin() + first, samples.begin() + last);
                paint(picture, x, layout.rowOf(channel, 0.0F), zeroLine);
                for (auto y = layout.rowOf(channel, *high); y <= layout.rowOf(channel, *low); ++y)
                {
                    paint(picture, x, y, envelope);
                }
                paint(picture, x, layout.rowOf(channel, peak), peakMark);
                paint(picture, x, layout.rowOf(channel, -peak), peakMark);
            }
        }
        return picture;
    }
}
