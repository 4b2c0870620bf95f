#include "ColourBars.hpp"

#include <algorithm>

namespace mxl::patterns
{
    YCbCr10 barsColour(std::uint32_t x, std::uint32_t y, std::uint32_t width, std::uint32_t height) noexcept
    {
        auto const x64 = std::uint64_t{x};
        auto const bar = static_cast<std::size_t>(x64 * 7 / width);
        auto const y64 = std::uint64_t{y};
        if (y64 * 3 < std::uint64_t{height} * 2)
        {
            return colours::bars[bar];
        }
        if (y64 * 4 < std::uint64_t{height} * 3)
        {
            return colours::castellations[bar];
        }
        // Bottom quarter, in quarter bars (0..27) and third bars (0..20).
        auto const quarterBar = x64 * 28 / width;
        auto const thirdBar = x64 * 21 / width;
        if (quarterBar >= 5 && quarterBar < 10)
        {
            return colours::white100;
        }
        if (thirdBar == 15)
        {
            return colours::subBlack4;
        }
        if (thirdBar == 17)
        {
            return colours::superBlack4;
        }
        return colours::black;
    }

    Box movingBox(std::uint64_t grainIndex, std::uint32_t width, std::uint32_t height) noexcept
    {
        auto const size = std::min(std::max<std::uint32_t>(2, height / 6 & ~1U), width & ~1U);
        auto const barsHeight = height * 2 / 3;
        auto const y = barsHeight > size ? (barsHeight - size) / 2 : 0;
        auto const travel = std::uint64_t{width - size} + 1;
        auto const step = std::uint64_t{std::max<std::uint32_t>(2, width / 100)};
        auto const x = static_cast<std::uint32_t>(grainIndex % travel * step % travel) & ~1U;
        return Box{x, y, size};
    }
}
