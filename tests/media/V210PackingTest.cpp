// v210 and v210a key packing, checked against bytes worked out by hand from the layout in the SDK's
// docs/Architecture.md, "Grain formats".
#include "media/V210Packing.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

using namespace mxl::media;

TEST_CASE("v210 line sizes are 128-byte multiples of 48-pixel groups, key lines 4 bytes per 3 pixels")
{
    CHECK(v210LineBytes(1920) == 5120);
    CHECK(v210LineBytes(1280) == 3456);
    CHECK(v210LineBytes(720) == 1920);
    CHECK(v210LineBytes(100) == 384);
    CHECK(v210LineBytes(48) == 128);
    CHECK(v210LineBytes(49) == 256);
    CHECK(keyLineBytes(1920) == 2560);
    CHECK(keyLineBytes(100) == 136);
    CHECK(keyLineBytes(4) == 8);
}

TEST_CASE("v210 packs six known pixels into four little-endian words: Cb0 Y0 Cr0 | Y1 Cb2 Y2 | Cr2 Y3 Cb4 | Y4 Cr4 Y5")
{
    std::array<YCbCr10, 6> const pixels{{
        {0x040, 0x200, 0x3ff},
        {0x3ac, 0x111, 0x222}, // odd pixels: chroma ignored
        {0x123, 0x0ab, 0x155},
        {0x001, 0x333, 0x044},
        {0x2cd, 0x3c0, 0x040},
        {0x111, 0x005, 0x006},
    }};
    std::vector<std::uint8_t> line(v210LineBytes(6), 0xee);
    packV210Line(pixels, line);

    std::array<std::uint8_t, 16> const expected{0x00, 0x02, 0xf1, 0x3f, 0xac, 0xaf, 0x32, 0x12,
                                                0x55, 0x05, 0x00, 0x3c, 0xcd, 0x02, 0x11, 0x11};
    CHECK(std::vector<std::uint8_t>(line.begin(), line.begin() + 16) == std::vector<std::uint8_t>(expected.begin(), expected.end()));
    for (std::size_t i = 16; i < line.size(); ++i)
    {
        INFO("padding byte ", i);
        CHECK(line[i] == 0);
    }

    CHECK(unpackV210Pixel(line, 0) == YCbCr10{0x040, 0x200, 0x3ff});
    CHECK(unpackV210Pixel(line, 1) == YCbCr10{0x3ac, 0x200, 0x3ff});
    CHECK(unpackV210Pixel(line, 2) == YCbCr10{0x123, 0x0ab, 0x155});
    CHECK(unpackV210Pixel(line, 5) == YCbCr10{0x111, 0x3c0, 0x040});
}

TEST_CASE("v210 fills a partial six-pixel group with black and pads the line with zeros")
{
    std::vector<YCbCr10> const pixels(8, YCbCr10{940, 512, 512});
    std::vector<std::uint8_t> line(v210LineBytes(8), 0xee);
    packV210Line(pixels, line);

    CHECK(unpackV210Pixel(line, 7) == YCbCr10{940, 512, 512});
    CHECK(unpackV210Pixel(line, 8) == YCbCr10{64, 512, 512});
    CHECK(unpackV210Pixel(line, 11) == YCbCr10{64, 512, 512});
    for (std::size_t i = 32; i < line.size(); ++i)
    {
        INFO("padding byte ", i);
        CHECK(line[i] == 0);
    }
}

TEST_CASE("v210 rejects a line buffer shorter than the packed line")
{
    std::vector<YCbCr10> const pixels(49, YCbCr10{64, 512, 512});
    std::vector<std::uint8_t> line(128);
    CHECK_THROWS(packV210Line(pixels, line));
}

TEST_CASE("v210a key packs three 10-bit samples per word in bits 0-9, 10-19, 20-29 and zero-pads the line")
{
    std::array<std::uint16_t, 4> const key{1, 2, 3, 0x3ff};
    std::vector<std::uint8_t> line(keyLineBytes(4), 0xee);
    packKeyLine(key, line);

    // 1 | 2 << 10 | 3 << 20 = 0x00300801; 0x3ff alone in bits 0-9 of the second word.
    std::vector<std::uint8_t> const expected{0x01, 0x08, 0x30, 0x00, 0xff, 0x03, 0x00, 0x00};
    CHECK(line == expected);
    CHECK(unpackKeySample(line, 2) == 3);
    CHECK(unpackKeySample(line, 3) == 0x3ff);
    CHECK(unpackKeySample(line, 4) == 0);
}
