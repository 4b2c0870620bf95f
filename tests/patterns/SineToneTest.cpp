// The test tone: frequency per channel, amplitude, and phase continuity across batches of any size.
#include <patterns/SineTone.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace mxl::patterns;

namespace
{
    constexpr mxlRational rate48k{48000, 1};
}

TEST_CASE("tone: channel c is 100 Hz x (c + 1) at amplitude 0.5, phase 0 at sample index 0")
{
    CHECK(toneFrequencyHz(0) == 100.0);
    CHECK(toneFrequencyHz(3) == 400.0);
    CHECK(toneSample(0, 0, rate48k) == doctest::Approx(0.0));
    // 100 Hz at 48 kHz: 480 samples per cycle, the crest a quarter in.
    CHECK(toneSample(0, 120, rate48k) == doctest::Approx(0.5));
    CHECK(toneSample(0, 360, rate48k) == doctest::Approx(-0.5));
    // 200 Hz: 240 samples per cycle.
    CHECK(toneSample(1, 60, rate48k) == doctest::Approx(0.5));
    CHECK(toneSample(1, 120, rate48k) == doctest::Approx(0.0));
}

TEST_CASE("tone: exact at sample indices of today's TAI clock (about 2^46)")
{
    // 1.8e9 s at 48 kHz, a whole number of 100 Hz cycles, plus a quarter cycle.
    std::uint64_t const cycleStart = 1'800'000'000ULL * 48'000;
    CHECK(toneSample(0, cycleStart, rate48k) == doctest::Approx(0.0));
    CHECK(toneSample(0, cycleStart + 120, rate48k) == doctest::Approx(0.5));
    CHECK(toneSample(2, cycleStart + 40, rate48k) == doctest::Approx(0.5));
}

TEST_CASE("tone: batches of different sizes join without a phase jump")
{
    std::uint64_t const first = 86'174'686'033'441ULL;
    std::vector<float> whole(2000);
    fillTone(whole, 1, first, rate48k);

    std::vector<float> batched(2000);
    std::size_t offset = 0;
    for (std::size_t const size : {480U, 1U, 479U, 1040U})
    {
        fillTone(std::span{batched}.subspan(offset, size), 1, first + offset, rate48k);
        offset += size;
    }
    REQUIRE(offset == batched.size());
    CHECK(batched == whole);

    // Neighbouring samples of a 200 Hz tone at 48 kHz never differ by more than 2 pi x 200 / 48000 x 0.5.
    for (std::size_t i = 1; i < whole.size(); ++i)
    {
        INFO("sample ", first + i);
        CHECK(std::abs(whole[i] - whole[i - 1]) < 0.0132F);
    }
}

TEST_CASE("tone: double samples carry the same values as float ones")
{
    std::vector<double> wide(16);
    std::vector<float> narrow(16);
    fillTone(wide, 0, 1000, rate48k);
    fillTone(narrow, 0, 1000, rate48k);
    for (std::size_t i = 0; i < wide.size(); ++i)
    {
        CHECK(static_cast<float>(wide[i]) == narrow[i]);
    }
}
