// Writing pictures as PNG files through libpng's simplified API.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace mxl::tools::info
{
    // 8-bit pixels, rows top to bottom, no padding.
    struct Picture
    {
        std::uint32_t width = 0;
        std::uint32_t height = 0;
        // 3: RGB, 4: RGBA (straight alpha).
        std::uint32_t channels = 3;
        std::vector<std::uint8_t> pixels;

        Picture(std::uint32_t pictureWidth, std::uint32_t pictureHeight, std::uint32_t pictureChannels);

        [[nodiscard]] std::uint8_t* at(std::uint32_t x, std::uint32_t y) noexcept
        {
            return pixels.data() + (static_cast<std::size_t>(y) * width + x) * channels;
        }
    };

    // Throws ToolError(Failure) naming the file and libpng's message.
    void writePng(std::filesystem::path const& file, Picture const& picture);
}
