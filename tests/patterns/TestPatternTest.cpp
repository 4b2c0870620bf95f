// The colour bars, the moving box and the key, read back from rendered v210/v210a grains.
#include <patterns/ColourBars.hpp>
#include <patterns/TestPatternRenderer.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

using namespace mxl::patterns;

namespace
{
    constexpr std::uint32_t width = 1920;
    constexpr std::uint32_t height = 1080;

    struct RenderedGrain
    {
        TestPatternRenderer renderer;
        std::vector<std::uint8_t> payload;

        RenderedGrain(std::uint64_t index, bool withKey)
            : renderer{width, height, withKey}
            , payload(renderer.grainBytes())
        {
            renderer.render(index, 0, height, payload);
        }

        YCbCr10 pixel(std::uint32_t x, std::uint32_t y) const
        {
            auto const bytes = renderer.fillLineBytes();
            return unpackV210Pixel(std::span{payload}.subspan(std::size_t{bytes} * y, bytes), x);
        }

        std::uint16_t key(std::uint32_t x, std::uint32_t y) const
        {
            auto const bytes = renderer.keyLineBytes();
            auto const keyPlane = std::size_t{renderer.fillLineBytes()} * height;
            return unpackKeySample(std::span{payload}.subspan(keyPlane + std::size_t{bytes} * y, bytes), x);
        }
    };

    // The middle of bar `bar` (0..6).
    std::uint32_t barCentre(std::uint32_t bar)
    {
        return width * (2 * bar + 1) / 14;
    }
}

TEST_CASE("colour bars: 75 % BT.709 10-bit values at known columns of the top two thirds")
{
    RenderedGrain const grain{1000, false};
    auto const box = movingBox(1000, width, height);
    // Line 100 lies above the box.
    REQUIRE(box.y > 100);
    CHECK(grain.pixel(barCentre(0), 100) == YCbCr10{721, 512, 512});
    CHECK(grain.pixel(barCentre(1), 100) == YCbCr10{674, 176, 543});
    CHECK(grain.pixel(barCentre(2), 100) == YCbCr10{581, 589, 176});
    CHECK(grain.pixel(barCentre(3), 100) == YCbCr10{534, 253, 207});
    CHECK(grain.pixel(barCentre(4), 100) == YCbCr10{251, 771, 817});
    CHECK(grain.pixel(barCentre(5), 100) == YCbCr10{204, 435, 848});
    CHECK(grain.pixel(barCentre(6), 100) == YCbCr10{111, 848, 481});
}

TEST_CASE("colour bars: castellations, 100 % white and the PLUGE in the lower third")
{
    RenderedGrain const grain{0, false};
    // Castellations from line 720 to 809.
    CHECK(grain.pixel(barCentre(0), 760) == colours::blue75);
    CHECK(grain.pixel(barCentre(1), 760) == colours::black);
    CHECK(grain.pixel(barCentre(6), 760) == colours::white75);
    // Bottom quarter from line 810: white from 5/4 to 10/4 bars, PLUGE in bar 5.
    CHECK(grain.pixel(barCentre(0), 1000) == colours::black);
    CHECK(grain.pixel(width * 15 / 56, 1000) == colours::white100);
    CHECK(grain.pixel(width * 31 / 42, 1000) == YCbCr10{29, 512, 512});
    CHECK(grain.pixel(width * 33 / 42, 1000) == colours::black);
    CHECK(grain.pixel(width * 35 / 42, 1000) == YCbCr10{99, 512, 512});
    CHECK(grain.pixel(barCentre(6), 1000) == colours::black);
}

TEST_CASE("moving box: 100 % white, placed by the grain index, on even columns")
{
    auto const first = movingBox(10, width, height);
    auto const next = movingBox(11, width, height);
    CHECK(first.size == 180);
    CHECK(first.x % 2 == 0);
    CHECK(next.x != first.x);

    RenderedGrain const grain{10, false};
    auto const insideY = first.y + first.size / 2;
    CHECK(grain.pixel(first.x, insideY) == colours::white100);
    CHECK(grain.pixel(first.x + first.size - 1, insideY) == colours::white100);
    CHECK(grain.pixel(first.x + first.size, insideY) != colours::white100);
    CHECK(grain.pixel(first.x, first.y - 1) != colours::white100);
}

TEST_CASE("v210a key: the box is opaque, the rest half transparent, in the key plane after the fill")
{
    RenderedGrain const grain{42, true};
    auto const box = movingBox(42, width, height);
    CHECK(grain.renderer.grainBytes() == (5120u + 2560u) * 1080u);
    CHECK(grain.key(box.x + 1, box.y + 1) == keyOpaque);
    CHECK(grain.key(box.x + box.size, box.y + 1) == keyHalf);
    CHECK(grain.key(0, 0) == keyHalf);
    CHECK(grain.key(width - 1, height - 1) == keyHalf);
    // The fill plane is the same picture as plain v210.
    RenderedGrain const fillOnly{42, false};
    CHECK(std::equal(fillOnly.payload.begin(), fillOnly.payload.end(), grain.payload.begin()));
}

TEST_CASE("rendering a grain in line ranges gives the same bytes as rendering it at once")
{
    TestPatternRenderer const renderer{100, 60, true};
    std::vector<std::uint8_t> whole(renderer.grainBytes());
    renderer.render(7, 0, 60, whole);
    std::vector<std::uint8_t> sliced(renderer.grainBytes(), 0xee);
    for (std::uint32_t first = 0; first < 60; first += 7)
    {
        renderer.render(7, first, std::min<std::uint32_t>(7, 60 - first), sliced);
    }
    CHECK(sliced == whole);
    CHECK_THROWS(renderer.render(7, 55, 6, sliced));
}
