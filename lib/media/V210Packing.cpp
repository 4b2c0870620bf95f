#include "media/V210Packing.hpp"

#include <algorithm>
#include <stdexcept>

namespace mxl::media
{
    namespace
    {
        constexpr YCbCr10 paddingPixel{64, 512, 512};
        constexpr std::uint32_t componentMask = 0x3ff;

        std::uint32_t threeComponents(std::uint32_t low, std::uint32_t middle, std::uint32_t high) noexcept
        {
            return (low & componentMask) | ((middle & componentMask) << 10) | ((high & componentMask) << 20);
        }

        void storeLittleEndian(std::uint8_t* bytes, std::uint32_t word) noexcept
        {
            bytes[0] = static_cast<std::uint8_t>(word);
            bytes[1] = static_cast<std::uint8_t>(word >> 8);
            bytes[2] = static_cast<std::uint8_t>(word >> 16);
            bytes[3] = static_cast<std::uint8_t>(word >> 24);
        }

        std::uint32_t loadLittleEndian(std::uint8_t const* bytes) noexcept
        {
            return static_cast<std::uint32_t>(bytes[0]) | (static_cast<std::uint32_t>(bytes[1]) << 8) |
                   (static_cast<std::uint32_t>(bytes[2]) << 16) | (static_cast<std::uint32_t>(bytes[3]) << 24);
        }

        std::uint16_t component(std::uint32_t word, unsigned position) noexcept
        {
            return static_cast<std::uint16_t>((word >> (10 * position)) & componentMask);
        }

        void requireSize(std::size_t available, std::size_t needed, char const* what)
        {
            if (available < needed)
            {
                throw std::invalid_argument{what};
            }
        }
    }

    void packV210Line(std::span<YCbCr10 const> pixels, std::span<std::uint8_t> line)
    {
        auto const width = static_cast<std::uint32_t>(pixels.size());
        requireSize(line.size(), v210LineBytes(width), "v210 line buffer shorter than v210LineBytes(width)");
        auto pixel = [&](std::uint32_t x) -> YCbCr10 const& { return x < width ? pixels[x] : paddingPixel; };

        auto* out = line.data();
        for (std::uint32_t x = 0; x < width; x += 6, out += 16)
        {
            auto const& p0 = pixel(x);
            auto const& p2 = pixel(x + 2);
            auto const& p4 = pixel(x + 4);
            storeLittleEndian(out, threeComponents(p0.cb, p0.y, p0.cr));
            storeLittleEndian(out + 4, threeComponents(pixel(x + 1).y, p2.cb, p2.y));
            storeLittleEndian(out + 8, threeComponents(p2.cr, pixel(x + 3).y, p4.cb));
            storeLittleEndian(out + 12, threeComponents(p4.y, p4.cr, pixel(x + 5).y));
        }
        std::fill(out, line.data() + v210LineBytes(width), std::uint8_t{0});
    }

    YCbCr10 unpackV210Pixel(std::span<std::uint8_t const> line, std::uint32_t x)
    {
        auto const group = x / 6;
        requireSize(line.size(), (group + 1) * 16, "v210 line shorter than the pixel asked for");
        auto const* words = line.data() + group * 16;
        auto word = [&](unsigned i) { return loadLittleEndian(words + 4 * i); };
        // Positions (word, component) of Y for each pixel of the group and of Cb/Cr for each even pixel.
        constexpr unsigned lumaWord[6] = {0, 1, 1, 2, 3, 3};
        constexpr unsigned lumaPosition[6] = {1, 0, 2, 1, 0, 2};
        constexpr unsigned cbWord[3] = {0, 1, 2};
        constexpr unsigned cbPosition[3] = {0, 1, 2};
        constexpr unsigned crWord[3] = {0, 2, 3};
        constexpr unsigned crPosition[3] = {2, 0, 1};
        auto const inGroup = x % 6;
        auto const pair = inGroup / 2;
        return YCbCr10{component(word(lumaWord[inGroup]), lumaPosition[inGroup]), component(word(cbWord[pair]), cbPosition[pair]),
                       component(word(crWord[pair]), crPosition[pair])};
    }

    void packKeyLine(std::span<std::uint16_t const> key, std::span<std::uint8_t> line)
    {
        auto const width = static_cast<std::uint32_t>(key.size());
        requireSize(line.size(), keyLineBytes(width), "key line buffer shorter than keyLineBytes(width)");
        auto sample = [&](std::uint32_t x) -> std::uint32_t { return x < width ? key[x] : 0U; };
        auto* out = line.data();
        for (std::uint32_t x = 0; x < width; x += 3, out += 4)
        {
            storeLittleEndian(out, threeComponents(sample(x), sample(x + 1), sample(x + 2)));
        }
    }

    std::uint16_t unpackKeySample(std::span<std::uint8_t const> line, std::uint32_t x)
    {
        requireSize(line.size(), (x / 3 + 1) * 4, "key line shorter than the sample asked for");
        return component(loadLittleEndian(line.data() + x / 3 * 4), x % 3);
    }
}
