#include "Colorimetry.hpp"

#include "ToolError.hpp"

#include <algorithm>
#include <cmath>

namespace mxl::tools::info
{
    namespace
    {
        // Narrow range: Y' 64-940 and Cb/Cr 64-960 around 512 (BT.709 table 4.6 at 10 bits).
        constexpr double lumaBlack = 64.0;
        constexpr double lumaRange = 876.0;
        constexpr double chromaZero = 512.0;
        constexpr double chromaRange = 896.0;

        std::uint8_t to8Bit(double value) noexcept
        {
            return static_cast<std::uint8_t>(std::lround(std::clamp(value, 0.0, 1.0) * 255.0));
        }
    }

    std::array<std::uint8_t, 3> Colorimetry::toRgb8(media::YCbCr10 pixel) const noexcept
    {
        auto const y = (pixel.y - lumaBlack) / lumaRange;
        auto const pb = (pixel.cb - chromaZero) / chromaRange;
        auto const pr = (pixel.cr - chromaZero) / chromaRange;
        auto const kg = 1.0 - kr - kb;
        auto const r = y + 2.0 * (1.0 - kr) * pr;
        auto const b = y + 2.0 * (1.0 - kb) * pb;
        auto const g = y - (2.0 * kb * (1.0 - kb) / kg) * pb - (2.0 * kr * (1.0 - kr) / kg) * pr;
        return {to8Bit(r), to8Bit(g), to8Bit(b)};
    }

    Colorimetry colorimetryOf(std::string_view colorspace, std::string_view flowId)
    {
        if (colorspace.empty() || colorspace == "BT709")
        {
            return {"BT709", 0.2126, 0.0722};
        }
        if (colorspace == "BT601")
        {
            return {"BT601", 0.299, 0.114};
        }
        // BT.2100 Y'CbCr uses the BT.2020 non-constant-luminance matrix.
        if (colorspace == "BT2020" || colorspace == "BT2100")
        {
            return {std::string{colorspace}, 0.2627, 0.0593};
        }
        badInput("flow {} has colorspace \"{}\": mxl-info makes pictures of BT601, BT709, BT2020 and BT2100 flows", flowId, colorspace);
    }

    std::uint8_t keyToAlpha8(std::uint16_t key) noexcept
    {
        return to8Bit((key - lumaBlack) / lumaRange);
    }
}
