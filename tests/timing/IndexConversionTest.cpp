// Index ↔ timestamp through the C API: the cases of the SDK's lib/tests/test_time.cpp (test N in a name is its Nth),
// rounding of halves and the UNDEFINED rules.
#include <mxl/time.h>

#include <doctest/doctest.h>

namespace
{
    constexpr mxlRational ntsc{30000, 1001};
    constexpr std::uint64_t ntscFrameNs = 33'366'667; // 1001/30000 s, rounded to the nearest ns
}

TEST_CASE("index conversion: invalid rates give MXL_UNDEFINED_INDEX (test 1)")
{
    constexpr mxlRational zero{0, 0};
    constexpr mxlRational zeroNumerator{0, 1001};
    constexpr mxlRational zeroDenominator{30000, 0};
    constexpr mxlRational negative{-30000, 1001};
    constexpr std::uint64_t now = 1'700'000'000'000'000'000;

    CHECK(mxlTimestampToIndex(nullptr, now) == MXL_UNDEFINED_INDEX);
    CHECK(mxlTimestampToIndex(&zero, now) == MXL_UNDEFINED_INDEX);
    CHECK(mxlTimestampToIndex(&zeroNumerator, now) == MXL_UNDEFINED_INDEX);
    CHECK(mxlTimestampToIndex(&zeroDenominator, now) == MXL_UNDEFINED_INDEX);
    CHECK(mxlTimestampToIndex(&negative, now) == MXL_UNDEFINED_INDEX);
    CHECK(mxlTimestampToIndex(&ntsc, now) != MXL_UNDEFINED_INDEX);

    CHECK(mxlIndexToTimestamp(nullptr, 5) == MXL_UNDEFINED_INDEX);
    CHECK(mxlIndexToTimestamp(&zero, 5) == MXL_UNDEFINED_INDEX);
    CHECK(mxlIndexToTimestamp(&zeroNumerator, 5) == MXL_UNDEFINED_INDEX);
    CHECK(mxlIndexToTimestamp(&zeroDenominator, 5) == MXL_UNDEFINED_INDEX);

    CHECK(mxlGetCurrentIndex(nullptr) == MXL_UNDEFINED_INDEX);
    CHECK(mxlGetCurrentIndex(&zero) == MXL_UNDEFINED_INDEX);
    CHECK(mxlGetCurrentIndex(&zeroDenominator) == MXL_UNDEFINED_INDEX);

    CHECK(mxlGetNsUntilIndex(5, nullptr) == MXL_UNDEFINED_INDEX);
    CHECK(mxlGetNsUntilIndex(5, &zero) == MXL_UNDEFINED_INDEX);
    CHECK(mxlGetNsUntilIndex(5, &zeroNumerator) == MXL_UNDEFINED_INDEX);
}

TEST_CASE("index conversion: index 0 is at the epoch even for an invalid rate, as in the SDK")
{
    constexpr mxlRational zero{0, 0};
    CHECK(mxlIndexToTimestamp(&zero, 0) == 0);
    CHECK(mxlIndexToTimestamp(nullptr, 0) == MXL_UNDEFINED_INDEX);
}

TEST_CASE("index conversion: index 0 and 1 at 30000/1001 (test 2)")
{
    CHECK(mxlTimestampToIndex(&ntsc, 0) == 0);
    CHECK(mxlIndexToTimestamp(&ntsc, 0) == 0);
    CHECK(mxlTimestampToIndex(&ntsc, ntscFrameNs) == 1);
    CHECK(mxlIndexToTimestamp(&ntsc, 1) == ntscFrameNs);
}

TEST_CASE("index conversion: the current index round-trips (test 4)")
{
    auto const now = mxlGetTime();
    auto const index = mxlGetCurrentIndex(&ntsc);
    REQUIRE(index != MXL_UNDEFINED_INDEX);
    auto const timestamp = mxlIndexToTimestamp(&ntsc, index);
    CHECK(mxlTimestampToIndex(&ntsc, timestamp) == index);
    auto const distance = timestamp > now ? timestamp - now : now - timestamp;
    CHECK(distance < ntscFrameNs);
    CHECK(mxlGetNsUntilIndex(index + 33, &ntsc) > 0);
    CHECK(mxlGetNsUntilIndex(index + 33, &ntsc) <= 34 * ntscFrameNs);
    CHECK(mxlGetNsUntilIndex(index - 2, &ntsc) == 0);
}

TEST_CASE("index conversion: index(ts(i)) == i for 30 million indices (test 5)")
{
    std::uint64_t mismatches = 0;
    for (std::uint64_t index = 30'000'000; index < 60'000'000; ++index)
    {
        mismatches += mxlTimestampToIndex(&ntsc, mxlIndexToTimestamp(&ntsc, index)) != index ? 1 : 0;
    }
    CHECK(mismatches == 0);
}

TEST_CASE("index conversion: timestamps round to the nearest index, halves up")
{
    constexpr mxlRational oneHz{1, 1};
    CHECK(mxlTimestampToIndex(&oneHz, 499'999'999) == 0);
    CHECK(mxlTimestampToIndex(&oneHz, 500'000'000) == 1);
    CHECK(mxlTimestampToIndex(&oneHz, 1'499'999'999) == 1);
    CHECK(mxlTimestampToIndex(&oneHz, 1'500'000'000) == 2);

    // Half a 29.97 Hz frame is 16,683,333.33 ns.
    CHECK(mxlTimestampToIndex(&ntsc, 16'683'333) == 0);
    CHECK(mxlTimestampToIndex(&ntsc, 16'683'334) == 1);
    // 1.5 frames is exactly 50,050,000 ns: a true half, which rounds up.
    CHECK(mxlTimestampToIndex(&ntsc, 50'049'999) == 1);
    CHECK(mxlTimestampToIndex(&ntsc, 50'050'000) == 2);
}

TEST_CASE("index conversion: indices map to the nearest nanosecond, halves up")
{
    constexpr mxlRational threeHz{3, 1};
    CHECK(mxlIndexToTimestamp(&threeHz, 1) == 333'333'333);
    CHECK(mxlIndexToTimestamp(&threeHz, 2) == 666'666'667);
    CHECK(mxlIndexToTimestamp(&threeHz, 3) == 1'000'000'000);

    // 2 GHz: ticks of half a nanosecond.
    constexpr mxlRational twoGHz{2'000'000'000, 1};
    CHECK(mxlIndexToTimestamp(&twoGHz, 1) == 1);
    CHECK(mxlIndexToTimestamp(&twoGHz, 2) == 1);
    CHECK(mxlIndexToTimestamp(&twoGHz, 3) == 2);
}

TEST_CASE("index conversion: audio sample indices at 48 kHz")
{
    constexpr mxlRational audio{48000, 1};
    CHECK(mxlIndexToTimestamp(&audio, 48000) == 1'000'000'000);
    CHECK(mxlTimestampToIndex(&audio, 1'000'000'000) == 48000);
    CHECK(mxlIndexToTimestamp(&audio, 1) == 20'833);
    // Today's TAI time in 48 kHz samples needs the 128-bit intermediate (ts × 48000 > 2^64).
    constexpr std::uint64_t ts = 1'800'000'000'000'000'000;
    CHECK(mxlTimestampToIndex(&audio, ts) == 86'400'000'000'000);
    CHECK(mxlIndexToTimestamp(&audio, 86'400'000'000'000) == ts);
}

TEST_CASE("index conversion: results that do not fit 64 bits are MXL_UNDEFINED_INDEX")
{
    CHECK(mxlIndexToTimestamp(&ntsc, MXL_UNDEFINED_INDEX - 1) == MXL_UNDEFINED_INDEX);
    constexpr mxlRational fast{INT64_MAX, 1};
    CHECK(mxlTimestampToIndex(&fast, 1'000'000'000'000'000'000) == MXL_UNDEFINED_INDEX);
}
