// The test picture: SMPTE-style 75 % colour bars with a white box that moves with the grain index, and its key.
//
// Layout (fractions of the picture, bar = width / 7):
//   top 2/3      seven 75 % bars: white, yellow, cyan, green, magenta, red, blue
//   next 1/12    castellations: blue, black, magenta, black, cyan, black, white (under the bars they complement)
//   bottom 1/4   black for 1 1/4 bars, 100 % white for 1 1/4 bars, black, and in bar 5 a PLUGE of -4 %, 0 % and +4 %
//                black; the -I and +Q patches of the NTSC original are left black.
// Colours are BT.709 10-bit narrow range (Y' 64-940, Cb/Cr 64-960 around 512).
#pragma once

#include "Packings.hpp"

#include <array>
#include <cstdint>

namespace mxl::patterns
{
    namespace colours
    {
        inline constexpr YCbCr10 white75{721, 512, 512};
        inline constexpr YCbCr10 yellow75{674, 176, 543};
        inline constexpr YCbCr10 cyan75{581, 589, 176};
        inline constexpr YCbCr10 green75{534, 253, 207};
        inline constexpr YCbCr10 magenta75{251, 771, 817};
        inline constexpr YCbCr10 red75{204, 435, 848};
        inline constexpr YCbCr10 blue75{111, 848, 481};
        inline constexpr YCbCr10 white100{940, 512, 512};
        inline constexpr YCbCr10 black{64, 512, 512};
        inline constexpr YCbCr10 subBlack4{29, 512, 512};
        inline constexpr YCbCr10 superBlack4{99, 512, 512};

        inline constexpr std::array<YCbCr10, 7> bars{white75, yellow75, cyan75, green75, magenta75, red75, blue75};
        inline constexpr std::array<YCbCr10, 7> castellations{blue75, black, magenta75, black, cyan75, black, white75};
    }

    // Key values (10-bit, the fill's luma range): the box is opaque, the bars show through at about half.
    inline constexpr std::uint16_t keyOpaque = 940;
    inline constexpr std::uint16_t keyHalf = 502;

    struct Box
    {
        std::uint32_t x;
        std::uint32_t y;
        std::uint32_t size;

        [[nodiscard]] bool contains(std::uint32_t px, std::uint32_t py) const noexcept
        {
            return px >= x && px < x + size && py >= y && py < y + size;
        }
    };

    // The bars without the box.
    YCbCr10 barsColour(std::uint32_t x, std::uint32_t y, std::uint32_t width, std::uint32_t height) noexcept;

    // The moving box of grain `grainIndex`: a square of height/6 (even, at least 2) centred vertically in the bars,
    // stepping right by about 1 % of the width per grain and wrapping; its x is always even so that it covers whole
    // chroma pairs.
    Box movingBox(std::uint64_t grainIndex, std::uint32_t width, std::uint32_t height) noexcept;
}
