// The v210 and v210a pixel packings (the SDK's docs/Architecture.md, "Grain formats"), independent of any picture
// content.
//
// v210: 10-bit 4:2:2 Y'CbCr, six pixels in four little-endian 32-bit words (16 bytes), three 10-bit components per word
// in bits 0-9, 10-19 and 20-29:
//     word 0: Cb0 Y0 Cr0    word 1: Y1 Cb2 Y2    word 2: Cr2 Y3 Cb4    word 3: Y4 Cr4 Y5
// A line is padded with zero bytes to a multiple of 128 bytes (48 pixels).
// v210a adds a key plane after the whole fill plane: three 10-bit key samples per little-endian 32-bit word (bits 0-9,
// 10-19, 20-29; bits 30-31 zero), each line padded with zeros to 4 bytes.
#pragma once

#include <cstdint>
#include <span>

namespace mxl::media
{
    // One pixel in 10-bit narrow-range Y'CbCr. Chroma is co-sited with the even pixels: an odd pixel's Cb and Cr are
    // ignored when packing.
    struct YCbCr10
    {
        std::uint16_t y;
        std::uint16_t cb;
        std::uint16_t cr;

        friend bool operator==(YCbCr10 const&, YCbCr10 const&) = default;
    };

    // Bytes of one v210 line of `width` pixels: ceil(width / 48) x 128.
    constexpr std::uint32_t v210LineBytes(std::uint32_t width) noexcept
    {
        return (width + 47) / 48 * 128;
    }

    // Bytes of one v210a key line of `width` pixels: ceil(width / 3) x 4.
    constexpr std::uint32_t keyLineBytes(std::uint32_t width) noexcept
    {
        return (width + 2) / 3 * 4;
    }

    // Packs `pixels` (the whole line) into `line` (at least v210LineBytes(pixels.size()) bytes). Pixels past the end
    // of a partial six-pixel group are black; the bytes after the last group are zero.
    void packV210Line(std::span<YCbCr10 const> pixels, std::span<std::uint8_t> line);

    // The luma of pixel `x` and the chroma of its even/odd pair, read back from a packed line.
    YCbCr10 unpackV210Pixel(std::span<std::uint8_t const> line, std::uint32_t x);

    // Packs 10-bit key samples (the whole line) into `line` (at least keyLineBytes(key.size()) bytes).
    void packKeyLine(std::span<std::uint16_t const> key, std::span<std::uint8_t> line);

    std::uint16_t unpackKeySample(std::span<std::uint8_t const> line, std::uint32_t x);
}
