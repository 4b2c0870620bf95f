// The picture of a v210 or v210a grain: what a monitor would show, as 8-bit RGB (RGBA with the key as alpha).
#pragma once

#include "Colorimetry.hpp"
#include "PngFile.hpp"

#include <cstdint>
#include <span>

namespace mxl::tools::info
{
    struct PictureGeometry
    {
        std::uint32_t width = 0;
        // Lines in one grain: the field height for interlaced flows.
        std::uint32_t lines = 0;
        // v210a: the key plane follows the whole fill plane.
        bool withKey = false;

        // Bytes the payload must hold.
        [[nodiscard]] std::size_t payloadBytes() const noexcept;
    };

    // `payload` holds at least geometry.payloadBytes() bytes. Chroma is taken from the co-sited even pixel.
    Picture pictureOfGrain(std::span<std::uint8_t const> payload, PictureGeometry const& geometry, Colorimetry const& colorimetry);
}
