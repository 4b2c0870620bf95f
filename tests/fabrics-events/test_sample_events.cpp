// Sample arrivals as events over tcp and shm: each batch gives one SAMPLES_ARRIVED, in order, naming the samples that
// the target's flow now holds.
#include "EventsLink.hpp"
#include "SamplePattern.hpp"

#include <doctest/doctest.h>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

TEST_CASE("events: sample batches arrive as SAMPLES_ARRIVED, in order, and the samples land")
{
    constexpr std::size_t batch = 480;
    constexpr std::uint64_t firstHead = 1'000'000 * batch;
    constexpr std::size_t batches = 60;
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "audio_48k_stereo.json"};
        for (std::size_t i = 0; i < batches; ++i)
        {
            auto const head = firstHead + i * batch;
            CAPTURE(head);
            REQUIRE(writePatternSamples(link.source.writer, head, batch, 17));
            REQUIRE(mxlFabricsInitiatorTransferSamples(link.initiator.initiator, head, batch) == MXL_STATUS_OK);
            link.lastProgress = MXL_ERR_NOT_READY;
            REQUIRE(link.driveUntil(
                [&]
                {
                    auto const arrived = link.seenOf(MXL_FABRICS_EVENT_SAMPLES_ARRIVED);
                    return !arrived.empty() && arrived.back().samples.headIndex == head && link.lastProgress == MXL_STATUS_OK;
                }));
            CHECK(patternMismatches(link.destination.reader, head, batch, 17) == std::optional<std::size_t>{0});
        }
        auto const arrived = link.seenOf(MXL_FABRICS_EVENT_SAMPLES_ARRIVED);
        REQUIRE(arrived.size() == batches);
        for (std::size_t i = 0; i < batches; ++i)
        {
            CAPTURE(i);
            CHECK(arrived[i].samples.headIndex == firstHead + i * batch);
            CHECK(arrived[i].samples.count == batch);
        }
        CHECK(link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED).empty());
        CHECK(link.seenOf(MXL_FABRICS_EVENT_ARRIVAL_LOST).empty());
    }
}
