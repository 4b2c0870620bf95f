#include "GrainPicture.hpp"

namespace mxl::tools::info
{
    std::size_t PictureGeometry::payloadBytes() const noexcept
    {
        auto const fill = static_cast<std::size_t>(media::v210LineBytes(width)) * lines;
        return withKey ? fill + static_cast<std::size_t>(media::keyLineBytes(width)) * lines : fill;
    }

    Picture pictureOfGrain(std::span<std::uint8_t const> payload, PictureGeometry const& geometry, Colorimetry const& colorimetry)
    {
        Picture picture{geometry.width, geometry.lines, geometry.withKey ? 4u : 3u};
        auto const fillLineBytes = media::v210LineBytes(geometry.width);
        auto const keyLineBytes = media::keyLineBytes(geometry.width);
        auto const keyPlane = payload.subspan(static_cast<std::size_t>(fillLineBytes) * geometry.lines);
        for (std::uint32_t y = 0; y < geometry.lines; ++y)
        {
            auto const fillLine = payload.subspan(static_cast<std::size_t>(y) * fillLineBytes, fillLineBytes);
            for (std::uint32_t x = 0; x < geometry.width; ++x)
            {
                auto const rgb = colorimetry.toRgb8(media::unpackV210Pixel(fillLine, x));
                auto* pixel = picture.at(x, y);
                std::copy(rgb.begin(), rgb.end(), pixel);
                if (geometry.withKey)
                {
                    auto const keyLine = keyPlane.subspan(static_cast<std::size_t>(y) * keyLineBytes, keyLineBytes);
                    pixel[3] = keyToAlpha8(media::unpackKeySample(keyLine, x));
                }
            }
        }
        return picture;
    }
}
