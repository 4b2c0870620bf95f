// Grain arrivals as events over tcp and shm: every transfer gives one GRAIN_ARRIVED in order with its slice counts and
// the bytes land; the descriptor wakes a poll() when a grain lands; a full queue holds the library thread back
// without losing or reordering an event, and where the dispatch reads tcp itself no arrival passes through the queue.
#include "EventsLink.hpp"
#include "ScopedVariable.hpp"
#include "Skip.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    // The grain index of every GRAIN_ARRIVED dispatched, in order.
    std::vector<std::uint64_t> arrivedIndices(EventsLink const& link)
    {
        std::vector<std::uint64_t> indices;
        for (auto const& event : link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED))
        {
            indices.push_back(event.grain.index);
        }
        return indices;
    }

    // The event descriptor is an epoll set where the dispatch reads the target itself, the queue's eventfd where a
    // library thread does.
    bool dispatchReadsTarget(int descriptor)
    {
        std::array<char, 64> link{};
        auto const path = "/proc/self/fd/" + std::to_string(descriptor);
        auto const length = ::readlink(path.c_str(), link.data(), link.size() - 1);
        return length > 0 && std::string_view{link.data(), static_cast<std::size_t>(length)} == "anon_inode:[eventpoll]";
    }
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
        // Where the application's dispatch reads the target (tcp), the transfer completes as it dispatches.
        auto const deadline = std::chrono::steady_clock::now() + 20s;
        while (!link.sawGrain(40, link.totalSlices()) && std::chrono::steady_clock::now() < deadline)
        {
            static_cast<void>(link.dispatch(100ms));
        }
        CHECK(sender.finish() == 0);
        CHECK(link.sawGrain(40, link.totalSlices()));
        // What the transfer's end left for the target (its last acknowledgements) is taken by a few more dispatches.
        for (int i = 0; i < 10 && pollReadable(link.fd, 0ms); ++i)
        {
            static_cast<void>(link.dispatch(0ms));
        }
        CHECK_FALSE(pollReadable(link.fd, 0ms));
        auto const arrived = readBack(link.destination, 40);
        REQUIRE(arrived.has_value());
        CHECK(arrived->checksum == checksum);
    }
}

TEST_CASE("events: a full queue holds the library thread back without losing or reordering an arrival, and counts the waits")
{
    // tcp's arrivals are read by the application's dispatch unless a library thread is asked for.
    ScopedVariable const thread{"MXL_FABRICS_TARGET_EVENT_THREAD", "1"};
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
        CHECK(arrivedIndices(link) == indices);
        CHECK(link.seenOf(MXL_FABRICS_EVENT_ARRIVAL_LOST).empty());
        auto const counters = link.counters();
        CHECK(counters.queueCapacity == 4);
        CHECK(counters.queued == counters.dispatched);
    }
}

TEST_CASE("events: where the dispatch reads the target itself (tcp), a queue of 4 takes 10 grains in order, none lost, none waiting")
{
    std::size_t readByDispatch = 0;
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "smpte291_59.94.json", 4, 1'000'000'000};
        if (!dispatchReadsTarget(link.fd))
        {
            // tcp targets have descriptors (libfabric's queues, UCX's worker); shm's are polled.
            CHECK(transport.provider != MXL_FABRICS_PROVIDER_TCP);
            continue;
        }
        ++readByDispatch;
        while (link.dispatch(0ms) > 0)
        {
        }
        std::vector<std::uint64_t> indices;
        std::vector<std::uint64_t> checksums;
        for (std::uint64_t index = 700; index < 710; ++index)
        {
            checksums.push_back(writeGrain(link.source, index, 17));
            indices.push_back(index);
        }
        Sender sender{link, indices};
        auto const deadline = std::chrono::steady_clock::now() + 30s;
        while (link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED).size() < indices.size() && std::chrono::steady_clock::now() < deadline)
        {
            static_cast<void>(link.dispatch(100ms));
        }
        CHECK(sender.finish() == 0);
        CHECK(arrivedIndices(link) == indices);
        for (std::size_t i = 0; i < indices.size(); ++i)
        {
            auto const landed = readBack(link.destination, indices[i]);
            REQUIRE(landed.has_value());
            CHECK(landed->checksum == checksums[i]);
        }
        CHECK(link.seenOf(MXL_FABRICS_EVENT_ARRIVAL_LOST).empty());
        auto const counters = link.counters();
        // Arrivals go from the transport to their handlers, not through the queue: it never fills.
        CHECK(counters.fullWaits == 0);
        CHECK(counters.highWater <= 1);
        CHECK(counters.queued == counters.dispatched);
    }
    if (readByDispatch == 0)
    {
        MXL_SKIP("no transport of this backend has a wait descriptor: a library thread reads every target");
    }
}

TEST_CASE("events: where the dispatch reads the target itself, a queue of 1 kept full by another thread's emits loses and reorders "
          "no arrival")
{
    std::size_t readByDispatch = 0;
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "smpte291_59.94.json", 1, 1'000'000'000};
        if (!dispatchReadsTarget(link.fd))
        {
            continue;
        }
        ++readByDispatch;
        while (link.dispatch(0ms) > 0)
        {
        }
        std::vector<std::uint64_t> indices;
        for (std::uint64_t index = 600; index < 610; ++index)
        {
            writeGrain(link.source, index, 19);
            indices.push_back(index);
        }
        std::atomic<bool> stopEmitting{false};
        std::atomic<std::uint64_t> emitted{0};
        std::thread emitter{[&]
                            {
                                mxlFabricsEvent event{};
                                event.structSize = sizeof(event);
                                event.type = MXL_FABRICS_EVENT_USER + 1;
                                while (!stopEmitting)
                                {
                                    if (mxlFabricsTargetEmitEvent(link.target.target, &event) == MXL_STATUS_OK)
                                    {
                                        ++emitted;
                                    }
                                    std::this_thread::yield();
                                }
                            }};
        // The queue is full before the first grain is sent.
        auto const emitting = std::chrono::steady_clock::now() + 10s;
        while (emitted == 0 && std::chrono::steady_clock::now() < emitting)
        {
            std::this_thread::sleep_for(1ms);
        }
        Sender sender{link, indices};
        auto const deadline = std::chrono::steady_clock::now() + 30s;
        while (link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED).size() < indices.size() && std::chrono::steady_clock::now() < deadline)
        {
            static_cast<void>(link.dispatch(100ms));
        }
        stopEmitting = true;
        emitter.join();
        CHECK(sender.finish() == 0);
        while (link.dispatch(0ms) > 0)
        {
        }
        CHECK(arrivedIndices(link) == indices);
        CHECK(link.seenOf(MXL_FABRICS_EVENT_ARRIVAL_LOST).empty());
        auto const counters = link.counters();
        CHECK(emitted > 0);
        CHECK(counters.queued == counters.dispatched);
        CHECK(counters.dispatched >= indices.size() + emitted);
    }
    if (readByDispatch == 0)
    {
        MXL_SKIP("no transport of this backend has a wait descriptor: a library thread reads every target");
    }
}
