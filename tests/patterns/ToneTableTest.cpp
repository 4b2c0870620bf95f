// The precomputed tone period: bit for bit the samples the tone computes, across period boundaries and at today's
// sample indices.
#include <patterns/SineTone.hpp>
#include <patterns/ToneTable.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace mxl::patterns;

namespace
{
    template <typename Sample>
    std::size_t mismatchesAgainstTone(ToneTable const& table, std::uint32_t channel, std::uint64_t first, std::size_t count,
                                      mxlRational const& rate)
    {
        std::vector<Sample> fromTable(count);
        std::vector<Sample> computed(count);
        table.fill(std::span<Sample>{fromTable}, channel, first);
        fillTone(std::span<Sample>{computed}, channel, first, rate);
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < count; ++i)
        {
            mismatches += fromTable[i] == computed[i] ? 0 : 1;
        }
        return mismatches;
    }
}

TEST_CASE("tone table: one period of every channel, the same samples as the tone")
{
    struct Case
    {
        mxlRational rate;
        std::uint64_t period;
    };
    // 48 kHz and 44.1 kHz repeat after one 100 Hz cycle; 48000/1001 Hz after 480 samples too; 44101 Hz never
    // divides by 100, so its period is the whole second.
    for (auto const& [rate, period] : {Case{{48000, 1}, 480}, Case{{44100, 1}, 441}, Case{{48000, 1001}, 480}, Case{{44101, 1}, 44101}})
    {
        INFO("rate ", rate.numerator, "/", rate.denominator);
        ToneTable const table{16, rate};
        CHECK(table.periodSamples() == period);
        // A run that starts mid-period and crosses several period boundaries, near today's TAI sample index.
        std::uint64_t const first = 1'800'000'000ULL * 48'000 + 37;
        for (std::uint32_t channel : {0U, 1U, 15U})
        {
            INFO("channel ", channel);
            CHECK(mismatchesAgainstTone<float>(table, channel, first, 3 * period + 11, rate) == 0);
            CHECK(mismatchesAgainstTone<double>(table, channel, first, 3 * period + 11, rate) == 0);
        }
    }
}

TEST_CASE("tone table: a rate that is not positive is refused")
{
    CHECK_THROWS_AS(ToneTable(2, mxlRational{0, 1}), std::invalid_argument);
    CHECK_THROWS_AS(ToneTable(2, mxlRational{48000, 0}), std::invalid_argument);
}
