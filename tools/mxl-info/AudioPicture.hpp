// The picture of a stretch of audio: one strip per channel with the waveform's envelope and its peak level marked.
//
// Each strip is `stripHeight` rows: the centre row is zero, the top row +1.0 (full scale), the bottom row -1.0. A
// column covers an equal share of the samples and is filled between their minimum and maximum (green); the rows of
// +peak and -peak are marked (red) across the strip, so a level reads off the picture as in a meter. Strips are
// separated by one row of background.
#pragma once

#include "PngFile.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::tools::info
{
    struct AudioPictureLayout
    {
        std::uint32_t width = 1000;
        // Odd, so that zero has a row of its own.
        std::uint32_t stripHeight = 121;

        // The row of `level` (-1.0 to +1.0) in the strip of `channel`.
        [[nodiscard]] std::uint32_t rowOf(std::uint32_t channel, float level) const noexcept;
    };

    // The largest absolute sample value.
    float peakOf(std::span<float const> samples) noexcept;

    // Full scale is 0 dBFS; silence is -inf.
    double decibelsFullScale(float peak) noexcept;

    // One strip per channel; every channel holds the same number of samples (at least one).
    Picture pictureOfAudio(std::vector<std::vector<float>> const& channels, AudioPictureLayout const& layout);
}
