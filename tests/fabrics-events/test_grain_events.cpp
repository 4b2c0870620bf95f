// Grain arrivals as events over tcp and shm: every transfer gives one GRAIN_ARRIVED in order with its slice counts and
// the bytes land; the descriptor wakes a poll() when a grain lands; a full queue holds the library thread back
// without losing or reordering an event.
#include "EventsLink.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    // Sends grains from a thread of its own, each transfer completed before the next, while the test's thread waits
    // on the target's descriptor. Statuses are kept for the test's thread to check: assertions there, not here.
    class Sender
    {
    public:
        Sender(EventsLink& link, std::vector<std::uint64_t> indices)
            : _thread{[initiator = link.initiator.initiator, slices = link.totalSlices(), indices = std::move(indices), this]
                      {
                          for (auto const index : indices)
                          {
                              if (mxlFabricsInitiatorTransferGrain(initiator, index, 0, slices) != MXL_STATUS_OK)
                              {
                                  ++_failures;
                                  return;
                              }
                              auto const deadline = std::chrono::steady_clock::now() + 20s;
                              auto status = MXL_ERR_NOT_READY;
                              while (status == MXL_ERR_NOT_READY && std::chrono::steady_clock::now() < deadline)
                              {
                                  status = mxlFabricsInitiatorMakeProgressBlocking(initiator, 10);
                              }
                              _failures += status == MXL_STATUS_OK ? 0U : 1U;
                          }
                      }}
        {
        }

        // Joins; the transfers that failed or never completed.
        unsigned finish()
        {
            _thread.join();
            return _failures.load();
        }

    private:
        std::atomic<unsigned> _failures{0};
        std::thread _thread;
    };
}

TEST_CASE("events: whole grains arrive as GRAIN_ARRIVED, in order, with their slice counts, and the bytes land")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "v210_1080p59.94.json"};
        auto const slices = link.totalSlices();
        std::uint64_t const first = 7000;
        std::uint64_t const count = 10;
        for (auto index = first; index < first + count; ++index)
        {
            CAPTURE(index);
            auto const checksum = writeGrain(link.source, index, 21);
            link.transferGrain(index, 0, slices);
            auto const arrived = readBack(link.destination, index);
            REQUIRE(arrived.has_value());
            CHECK(arrived->checksum == checksum);
        }
        auto const grains = link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED);
        REQUIRE(grains.size() == count);
        for (std::uint64_t i = 0; i < count; ++i)
        {
            CAPTURE(i);
            CHECK(grains[i].structSize == sizeof(mxlFabricsEvent));
            CHECK(grains[i].grain.index == first + i);
            CHECK(grains[i].grain.validSlices == slices);
            CHECK(grains[i].grain.totalSlices == slices);
            CHECK(grains[i].grain.flags == 0);
        }
        CHECK(link.seenOf(MXL_FABRICS_EVENT_ARRIVAL_LOST).empty());
        CHECK(link.seenOf(MXL_FABRICS_EVENT_TARGET_FAILED).empty());
        auto const counters = link.counters();
        CHECK(counters.queued == counters.dispatched);
        CHECK(counters.fullWaits == 0);
    }
}

TEST_CASE("events: a grain sent in two slice ranges arrives as two events with growing validSlices, and an invalid grain flagged")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "v210a_1080p59.94.json"};
        auto const slices = link.totalSlices();
        auto const half = static_cast<std::uint16_t>(slices / 2);
        auto const checksum = writeGrain(link.source, 300, 5);
        link.transferGrain(300, 0, half);
        auto const partial = readBack(link.destination, 300, half);
        REQUIRE(partial.has_value());
        CHECK(partial->info.validSlices == half);
        link.transferGrain(300, half, slices);
        auto const whole = readBack(link.destination, 300);
        REQUIRE(whole.has_value());
        CHECK(whole->checksum == checksum);

        writeGrain(link.source, 301, 6, MXL_GRAIN_FLAG_INVALID);
        link.transferGrain(301, 0, 0);

        auto const grains = link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED);
        REQUIRE(grains.size() == 3);
        CHECK(grains[0].grain.index == 300);
        CHECK(grains[0].grain.validSlices == half);
        CHECK(grains[0].grain.totalSlices == slices);
        CHECK(grains[1].grain.index == 300);
        CHECK(grains[1].grain.validSlices == slices);
        CHECK(grains[1].grain.totalSlices == slices);
        CHECK(grains[2].grain.index == 301);
        CHECK(grains[2].grain.validSlices == 0);
        CHECK((grains[2].grain.flags & MXL_GRAIN_FLAG_INVALID) != 0);
    }
}

TEST_CASE("events: poll() on the descriptor wakes when a grain lands, and the descriptor is quiet once dispatched")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "smpte291_59.94.json"};
        // The connection's events (tcp) are dispatched: nothing is pending.
        while (link.dispatch(0ms) > 0)
        {
        }
        CHECK_FALSE(pollReadable(link.fd, 0ms));
        auto const checksum = writeGrain(link.source, 40, 9);
        Sender sender{link, {40}};
        CHECK(pollReadable(link.fd, 10s));
        CHECK(sender.finish() == 0);
        while (!link.sawGrain(40, link.totalSlices()) && link.dispatch(5s) > 0)
        {
        }
        CHECK(link.sawGrain(40, link.totalSlices()));
        CHECK_FALSE(pollReadable(link.fd, 0ms));
        auto const arrived = readBack(link.destination, 40);
        REQUIRE(arrived.has_value());
        CHECK(arrived->checksum == checksum);
    }
}

TEST_CASE("events: a full queue holds the library thread back without losing or reordering an arrival, and counts the waits")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        // A queue of 4 and 10 grains: the library thread must wait for room at least once. A second of history keeps
        // every grain in both rings.
        EventsLink link{transport, "smpte291_59.94.json", 4, 1'000'000'000};
        while (link.dispatch(0ms) > 0)
        {
        }
        std::vector<std::uint64_t> indices;
        for (std::uint64_t index = 900; index < 910; ++index)
        {
            writeGrain(link.source, index, 13);
            indices.push_back(index);
        }
        Sender sender{link, indices};
        // Nothing is dispatched until the library thread found the queue full.
        auto const deadline = std::chrono::steady_clock::now() + 10s;
        while (link.counters().fullWaits == 0 && std::chrono::steady_clock::now() < deadline)
        {
            std::this_thread::sleep_for(1ms);
        }
        CHECK(link.counters().fullWaits >= 1);
        CHECK(link.counters().highWater == 4);
        while (link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED).size() < indices.size() && link.dispatch(5s) > 0)
        {
        }
        CHECK(sender.finish() == 0);
        std::vector<std::uint64_t> arrived;
        for (auto const& event : link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED))
        {
            arrived.push_back(event.grain.index);
        }
        CHECK(arrived == indices);
        CHECK(link.seenOf(MXL_FABRICS_EVENT_ARRIVAL_LOST).empty());
        auto const counters = link.counters();
        CHECK(counters.queueCapacity == 4);
        CHECK(counters.queued == counters.dispatched);
    }
}
