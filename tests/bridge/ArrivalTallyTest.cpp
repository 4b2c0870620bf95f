// The receiving end's tally (lib/bridge ArrivalTally), shared by the service's receiver session and the demo's target:
// a grain sent slice range by slice range counts once, when complete, with all its bytes; skipped grain indices and
// sample runs are lost units (across a restart while the stream goes on); a batch's bytes are what the flow holds for it.
#include "bridge/ArrivalTally.hpp"

#include "DomainFlow.hpp"

#include <mxl/flow.h>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using mxl::bridge::ArrivalTally;

namespace
{
    // Two planes of 100 and 20 bytes a slice, 10 slices a grain; grains need no flow (no reader).
    mxlFlowConfigInfo videoConfig()
    {
        mxlFlowConfigInfo config{};
        config.common.format = MXL_DATA_FORMAT_VIDEO;
        config.discrete.sliceSizes[0] = 100;
        config.discrete.sliceSizes[1] = 20;
        return config;
    }

    // The same at 50 grains a second, in a ring of 8.
    mxlFlowConfigInfo videoConfigAt50()
    {
        auto config = videoConfig();
        config.common.grainRate = {50, 1};
        config.discrete.grainCount = 8;
        return config;
    }

    // The 48 kHz stereo flow of flows/ in a fresh domain named after `tag`.
    struct TallyAudioFlow : mxl::test::DomainFlow
    {
        explicit TallyAudioFlow(std::string const& tag)
            : DomainFlow{tag, mxl::test::readFile(mxl::test::sourcePath("flows/audio_48k_stereo.json")),
                         "b6d81e24-5a3f-4c90-9f7b-38e0c2a4d165"}
        {
        }
    };

    mxlFabricsGrainArrival grainArrival(std::uint64_t index, std::uint16_t validSlices, std::uint32_t flags = 0)
    {
        return {index, validSlices, 10, flags};
    }
}

TEST_CASE("arrival tally: a grain in three slice ranges counts once, complete, with the bytes of all its slices")
{
    ArrivalTally tally{nullptr, videoConfig()};
    auto const first = tally.grain(grainArrival(7, 3));
    CHECK_FALSE(first.completed);
    CHECK(first.lost == 0);
    CHECK_FALSE(tally.grain(grainArrival(7, 6)).completed);
    auto const last = tally.grain(grainArrival(7, 10));
    REQUIRE(last.completed);
    CHECK(last.completed->last == 7);
    CHECK(last.completed->bytes == 10 * 120);
    CHECK(last.completed->samples == 0);
    // A repeated completion of the same grain counts nothing more.
    CHECK_FALSE(tally.grain(grainArrival(7, 10)).completed);
}

TEST_CASE("arrival tally: skipped grain indices are lost units, an older arrival costs nothing, and restart forgets")
{
    ArrivalTally tally{nullptr, videoConfig()};
    CHECK(tally.grain(grainArrival(10, 10)).lost == 0);
    auto const gap = tally.grain(grainArrival(14, 10));
    CHECK(gap.lost == 3);
    REQUIRE(gap.completed);
    auto const older = tally.grain(grainArrival(12, 10));
    CHECK(older.lost == 0);
    CHECK(older.completed);
    // 15 follows 14, the newest, whatever came in between.
    CHECK(tally.grain(grainArrival(15, 10)).lost == 0);
    tally.restart();
    CHECK(tally.grain(grainArrival(40, 10)).lost == 0);
}

TEST_CASE("arrival tally: a grain left with some of its slices when the next one arrives is lost")
{
    ArrivalTally tally{nullptr, videoConfig()};
    CHECK_FALSE(tally.grain(grainArrival(20, 4)).completed);
    auto const next = tally.grain(grainArrival(21, 10));
    CHECK(next.lost == 1);
    REQUIRE(next.completed);
    CHECK(next.completed->bytes == 10 * 120);
    // A complete grain followed by the next costs nothing.
    CHECK(tally.grain(grainArrival(22, 10)).lost == 0);
    // An older grain arriving while a later one is incomplete costs neither.
    CHECK_FALSE(tally.grain(grainArrival(30, 4)).completed);
    auto const older = tally.grain(grainArrival(28, 10));
    CHECK(older.lost == 0);
    CHECK(older.completed);
}

TEST_CASE("arrival tally: an invalid grain completes with the slices it has, none when flagged empty")
{
    ArrivalTally tally{nullptr, videoConfig()};
    auto const counted = tally.grain(grainArrival(3, 0, MXL_GRAIN_FLAG_INVALID));
    REQUIRE(counted.completed);
    CHECK(counted.completed->bytes == 0);
}

TEST_CASE("arrival tally: a batch counts at once with the bytes its flow holds, a skipped run as whole batches")
{
    TallyAudioFlow flow{"bridge-tally"};
    // Samples 1000..1479 written: batches of 48 end at 1047, 1095, ...
    mxlMutableWrappedMultiBufferSlice slices{};
    REQUIRE(mxlFlowWriterOpenSamples(flow.writer.get(), 1479, 480, &slices) == MXL_STATUS_OK);
    REQUIRE(mxlFlowWriterCommitSamples(flow.writer.get()) == MXL_STATUS_OK);

    ArrivalTally tally{flow.reader.get(), flow.writer.config()};
    auto const first = tally.samples({1047, 48});
    REQUIRE(first.completed);
    CHECK(first.completed->last == 1047);
    CHECK(first.completed->samples == 48);
    // Two channels of 48 float samples.
    CHECK(first.completed->bytes == 2 * 48 * sizeof(float));
    CHECK(first.lost == 0);
    // 1048..1143 (two batches) skipped.
    auto const after = tally.samples({1191, 48});
    CHECK(after.lost == 2);
    // Half a batch skipped is one batch lost.
    CHECK(tally.samples({1263, 48}).lost == 1);
}

TEST_CASE("arrival tally: across a restart, the grains a stream going on skipped are lost, a jump back or past the time passed is a new "
          "stream")
{
    using namespace std::chrono_literals;
    auto const before = ArrivalTally::Clock::time_point{} + 100s;
    {
        // 3 s at 50 grains a second: 150 grains, and the ring of 8 and a second (50) for the delays.
        ArrivalTally tally{nullptr, videoConfigAt50()};
        CHECK(tally.grain(grainArrival(1000, 10), before).lost == 0);
        tally.restart();
        auto const after = tally.grain(grainArrival(1140, 10), before + 3s);
        CHECK(after.lost == 139);
        CHECK(after.completed);
        CHECK(tally.grain(grainArrival(1141, 10), before + 3s).lost == 0);
    }
    {
        ArrivalTally tally{nullptr, videoConfigAt50()};
        CHECK(tally.grain(grainArrival(1000, 10), before).lost == 0);
        tally.restart();
        CHECK(tally.grain(grainArrival(1001 + 150 + 58, 10), before + 3s).lost == 208);
    }
    {
        // One grain further than the time passed and the delays allow.
        ArrivalTally tally{nullptr, videoConfigAt50()};
        CHECK(tally.grain(grainArrival(1000, 10), before).lost == 0);
        tally.restart();
        CHECK(tally.grain(grainArrival(1001 + 150 + 59, 10), before + 3s).lost == 0);
    }
    {
        // Behind the newest grain: a new stream, counted from where it is.
        ArrivalTally tally{nullptr, videoConfigAt50()};
        CHECK(tally.grain(grainArrival(1000, 10), before).lost == 0);
        tally.restart();
        CHECK(tally.grain(grainArrival(200, 10), before + 3s).lost == 0);
        CHECK(tally.grain(grainArrival(203, 10), before + 3s).lost == 2);
    }
    {
        // A grain left incomplete at the rebuild is lost when the stream goes on.
        ArrivalTally tally{nullptr, videoConfigAt50()};
        CHECK_FALSE(tally.grain(grainArrival(1000, 4), before).completed);
        tally.restart();
        CHECK(tally.grain(grainArrival(1010, 10), before + 1s).lost == 10);
    }
}

TEST_CASE("arrival tally: across a restart, samples a stream going on skipped are lost as whole batches")
{
    TallyAudioFlow flow{"bridge-tally-restart"};
    using namespace std::chrono_literals;
    auto const before = ArrivalTally::Clock::time_point{} + 100s;
    ArrivalTally tally{flow.reader.get(), flow.writer.config()};
    CHECK(tally.samples({1047, 48}, before).lost == 0);
    tally.restart();
    // 1 s at 48 kHz: 48000 samples, 1000 batches of 48 skipped from 1048 to 49047.
    CHECK(tally.samples({49095, 48}, before + 1s).lost == 1000);
    tally.restart();
    CHECK(tally.samples({1095, 48}, before + 2s).lost == 0);
}

TEST_CASE("arrival tally: after a stop on purpose, the trailing grains go on with the stream and the first after them starts a new "
          "one, a rebuild meanwhile included")
{
    using namespace std::chrono_literals;
    auto const stopped = ArrivalTally::Clock::time_point{} + 100s;
    {
        // Ten minutes at 50 grains a second: 30,000 grains of pause.
        ArrivalTally tally{nullptr, videoConfigAt50()};
        CHECK(tally.grain(grainArrival(1000, 10), stopped - 1s).lost == 0);
        tally.expectNewStream(stopped + 2s);
        // A grain still under way when the sender stopped, one skipped before it.
        CHECK(tally.grain(grainArrival(1002, 10), stopped + 1s).lost == 1);
        auto const resumed = tally.grain(grainArrival(31'002, 10), stopped + 600s);
        CHECK(resumed.lost == 0);
        CHECK(resumed.completed);
        // From then on, the new stream is counted as usual.
        CHECK(tally.grain(grainArrival(31'005, 10), stopped + 600s).lost == 2);
    }
    {
        // A pause within the rule across a rebuild is still no loss: the stop was asked for.
        ArrivalTally tally{nullptr, videoConfigAt50()};
        CHECK(tally.grain(grainArrival(1000, 10), stopped).lost == 0);
        tally.expectNewStream(stopped + 2s);
        tally.restart();
        CHECK(tally.grain(grainArrival(1150, 10), stopped + 3s).lost == 0);
        CHECK(tally.grain(grainArrival(1152, 10), stopped + 3s).lost == 1);
    }
}

TEST_CASE("arrival tally: samples resuming after a stop on purpose start a new stream")
{
    using namespace std::chrono_literals;
    auto const stopped = ArrivalTally::Clock::time_point{} + 100s;
    TallyAudioFlow flow{"bridge-tally-resume"};
    ArrivalTally tally{flow.reader.get(), flow.writer.config()};
    auto const first = tally.samples({1047, 48}, stopped - 1s);
    REQUIRE(first.completed);
    CHECK(first.lost == 0);
    tally.expectNewStream(stopped + 2s);
    // A batch under way at the stop, one skipped before it: counted as usual.
    CHECK(tally.samples({1143, 48}, stopped + 1s).lost == 1);
    // 10 s at 48 kHz later: 10,000 batches of pause, none lost.
    auto const resumed = tally.samples({481'095, 48}, stopped + 10s);
    CHECK(resumed.lost == 0);
    REQUIRE(resumed.completed);
    CHECK(resumed.completed->samples == 48);
    CHECK(tally.samples({481'191, 48}, stopped + 10s).lost == 1);
}
