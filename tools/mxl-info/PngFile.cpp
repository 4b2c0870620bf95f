#include "PngFile.hpp"

#include "ToolError.hpp"

#include <png.h>

namespace mxl::tools::info
{
    Picture::Picture(std::uint32_t pictureWidth, std::uint32_t pictureHeight, std::uint32_t pictureChannels)
        : width{pictureWidth}
        , height{pictureHeight}
        , channels{pictureChannels}
        , pixels(static_cast<std::size_t>(pictureWidth) * pictureHeight * pictureChannels)
    {
    }

    void writePng(std::filesystem::path const& file, Picture const& picture)
    {
        png_image image{};
        image.version = PNG_IMAGE_VERSION;
        image.width = picture.width;
        image.height = picture.height;
        image.format = picture.channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
        auto const stride = static_cast<png_int_32>(picture.width * picture.channels);
        if (png_image_write_to_file(&image, file.c_str(), 0, picture.pixels.data(), stride, nullptr) == 0)
        {
            std::string const reason = image.message;
            png_image_free(&image);
            runtimeFailure("cannot write the picture {}: {}", file.string(), reason);
        }
    }
}
