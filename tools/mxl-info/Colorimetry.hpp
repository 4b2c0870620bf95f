// The Y'CbCr to R'G'B' matrix of a flow's NMOS colorspace, for pictures of its grains.
#pragma once

#include "media/V210Packing.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mxl::tools::info
{
    struct Colorimetry
    {
        // The NMOS name ("BT709", ...).
        std::string name;
        // Luma weights of red and blue (ITU-R BT.601, BT.709, BT.2020 tables).
        double kr = 0.0;
        double kb = 0.0;

        // A 10-bit narrow-range pixel as 8-bit full-range R'G'B' (the transfer curve is kept: a PNG viewer shows it as
        // a monitor shows the signal).
        [[nodiscard]] std::array<std::uint8_t, 3> toRgb8(media::YCbCr10 pixel) const noexcept;
    };

    // An empty colorspace is BT709, the default a flow definition without one means in practice. Throws
    // ToolError(Usage) naming the flow and the value for colorspaces without a Y'CbCr matrix here (XYZ, ST2065-*).
    Colorimetry colorimetryOf(std::string_view colorspace, std::string_view flowId);

    // A 10-bit key sample of the fill's luma range (64-940) as 8-bit alpha.
    std::uint8_t keyToAlpha8(std::uint16_t key) noexcept;
}
