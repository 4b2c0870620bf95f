// The initiator's events: an application sleeping in poll() on the initiator's and the target's descriptors wakes for
// the grain and for the transfer; one handler per type, replaceable; a handler may emit, read and free a batch, and is
// refused the calls that would end its dispatch; a full queue keeps every event, in order.
#include "BatchFan.hpp"

#include <doctest/doctest.h>

#include <poll.h>

#include <array>
#include <string>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    struct Woken
    {
        std::vector<std::uint64_t> grains;
    };

    void onGrain(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        static_cast<Woken*>(userData)->grains.push_back(event->grain.index);
    }
}

TEST_CASE(
    "initiator events: an application sleeping in poll() on both descriptors wakes when the grain lands and when its transfer completes")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        BatchFan fan{transport, "v210_1080p59.94.json", 1};
        auto* target = fan.receivers[0]->target.target;
        Woken woken;
        REQUIRE(mxlFabricsTargetSetEventHandler(target, MXL_FABRICS_EVENT_GRAIN_ARRIVED, &onGrain, &woken) == MXL_STATUS_OK);
        int targetFd = -1;
        REQUIRE(mxlFabricsTargetStartEvents(target, 0, &targetFd) == MXL_STATUS_OK);
        std::array<pollfd, 2> descriptors{pollfd{fan.fd, POLLIN, 0}, pollfd{targetFd, POLLIN, 0}};
        // Nothing is queued: the connection events were dispatched while the fixture connected.
        CHECK(::poll(descriptors.data(), descriptors.size(), 0) == 0);
        fan.seen.clear();

        auto const checksum = writeGrain(fan.source, 900, 77);
        auto const batch = fan.createBatch();
        std::uint32_t transfer = 0;
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, 900, 0, 1080, &transfer) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsBatchSubmit(fan.initiator.initiator, batch) == MXL_STATUS_OK);

        // The application's loop: sleep in poll(), dispatch what woke it, and on its own 5 ms timer drive the initiator,
        // which has no thread of its own.
        std::size_t wakeups = 0;
        auto const deadline = std::chrono::steady_clock::now() + 20s;
        while ((woken.grains.empty() || fan.seenOf(MXL_FABRICS_EVENT_BATCH_COMPLETED).empty()) &&
               std::chrono::steady_clock::now() < deadline)
        {
            auto const ready = ::poll(descriptors.data(), descriptors.size(), 5);
            REQUIRE(ready >= 0);
            if (ready == 0)
            {
                static_cast<void>(mxlFabricsInitiatorMakeProgressNonBlocking(fan.initiator.initiator));
                continue;
            }
            ++wakeups;
            std::size_t dispatched = 0;
            if ((descriptors[0].revents & POLLIN) != 0)
            {
                CHECK(mxlFabricsInitiatorDispatchEvents(fan.initiator.initiator, 0, &dispatched) == MXL_STATUS_OK);
            }
            if ((descriptors[1].revents & POLLIN) != 0)
            {
                // Where the dispatch reads the target itself (tcp), the descriptor also wakes for transport work that is
                // no arrival: NOT_READY then.
                auto const status = mxlFabricsTargetDispatchEvents(target, 0, &dispatched);
                CHECK((status == MXL_STATUS_OK || status == MXL_ERR_NOT_READY));
            }
        }
        CHECK(wakeups >= 1);
        CHECK(woken.grains == std::vector<std::uint64_t>{900});
        CHECK(readBack(fan.receivers[0]->flow, 900)->checksum == checksum);
        REQUIRE(fan.seen.size() == 2);
        CHECK(fan.seen[0].type == MXL_FABRICS_EVENT_TRANSFER_COMPLETED);
        CHECK(fan.seen[0].transfer.batch == batch);
        CHECK(fan.seen[0].transfer.transfer == 0);
        CHECK(fan.seen[0].transfer.targetsCompleted == 1);
        CHECK(fan.seen[1].type == MXL_FABRICS_EVENT_BATCH_COMPLETED);
        CHECK(fan.seen[1].batch.batch == batch);
        CHECK(fan.seen[1].batch.transfersCompleted == 1);
        CHECK(::poll(descriptors.data(), 1, 0) == 0);

        mxlFabricsEventCounters counters{};
        counters.structSize = sizeof(counters);
        REQUIRE(mxlFabricsInitiatorGetEventCounters(fan.initiator.initiator, &counters) == MXL_STATUS_OK);
        CHECK(counters.queued == counters.dispatched);
        CHECK(counters.fullWaits == 0);
        REQUIRE(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);
    }
}

namespace
{
    constexpr std::uint32_t echoType = MXL_FABRICS_EVENT_USER + 5;

    // What the handlers of the next test saw and did.
    struct Script
    {
        BatchFan* fan = nullptr;
        std::vector<std::string> log;
        std::vector<mxlStatus> refused;
        mxlFabricsBatchSummary summaryInHandler{};
    };

    void first(mxlFabricsInitiator, mxlFabricsEvent const* event, void* userData)
    {
        static_cast<Script*>(userData)->log.push_back("first " + std::to_string(event->transfer.transfer));
    }

    void second(mxlFabricsInitiator, mxlFabricsEvent const* event, void* userData)
    {
        static_cast<Script*>(userData)->log.push_back("second " + std::to_string(event->transfer.transfer));
    }

    void onBatch(mxlFabricsInitiator initiator, mxlFabricsEvent const* event, void* userData)
    {
        auto& script = *static_cast<Script*>(userData);
        script.log.push_back("batch");
        script.summaryInHandler.structSize = sizeof(script.summaryInHandler);
        static_cast<void>(mxlFabricsBatchGetSummary(initiator, event->batch.batch, &script.summaryInHandler));
        std::size_t dispatched = 0;
        script.refused.push_back(mxlFabricsInitiatorDispatchEvents(initiator, 0, &dispatched));
        script.refused.push_back(mxlFabricsInitiatorStopEvents(initiator));
        script.refused.push_back(mxlFabricsDestroyInitiator(script.fan->initiator.fabrics, initiator));
        mxlFabricsInitiatorConfig config{};
        config.reader = script.fan->source.reader;
        script.refused.push_back(mxlFabricsInitiatorSetup(initiator, &config, nullptr));
        script.refused.push_back(mxlFabricsInitiatorFreeBatch(initiator, event->batch.batch));
        mxlFabricsEvent echo{};
        echo.structSize = sizeof(echo);
        echo.type = echoType;
        echo.user.value = event->batch.batch;
        script.refused.push_back(mxlFabricsInitiatorEmitEvent(initiator, &echo));
    }

    void onEcho(mxlFabricsInitiator, mxlFabricsEvent const* event, void* userData)
    {
        static_cast<Script*>(userData)->log.push_back("echo " + std::to_string(event->user.value));
    }
}

TEST_CASE("initiator events: one handler per type and replaceable, a handler emits, reads and frees but may not end its dispatch")
{
    auto const transport = tcpLoopback();
    BatchFan fan{transport, "v210_1080p59.94.json", 1};
    Script script;
    script.fan = &fan;
    auto* initiator = fan.initiator.initiator;
    REQUIRE(mxlFabricsInitiatorSetEventHandler(initiator, MXL_FABRICS_EVENT_TRANSFER_COMPLETED, &first, &script) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsInitiatorSetEventHandler(initiator, MXL_FABRICS_EVENT_BATCH_COMPLETED, &onBatch, &script) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsInitiatorSetEventHandler(initiator, echoType, &onEcho, &script) == MXL_STATUS_OK);
    // Target events are not the initiator's.
    CHECK(mxlFabricsInitiatorSetEventHandler(initiator, MXL_FABRICS_EVENT_GRAIN_ARRIVED, &first, &script) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsInitiatorSetEventHandler(initiator, 0x106, &first, &script) == MXL_ERR_INVALID_ARG);

    writeGrain(fan.source, 910, 1);
    writeGrain(fan.source, 911, 1);
    auto const runBatch = [&](std::uint64_t index)
    {
        auto const batch = fan.createBatch();
        std::uint32_t transfer = 0;
        REQUIRE(mxlFabricsBatchAddGrain(initiator, batch, nullptr, index, 0, 1080, &transfer) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsBatchSubmit(initiator, batch) == MXL_STATUS_OK);
        REQUIRE(fan.driveUntil([&] { return !script.log.empty() && script.log.back().rfind("echo", 0) == 0; }));
        return batch;
    };
    auto const batch = runBatch(910);
    CHECK(script.log == std::vector<std::string>{"first 0", "batch", "echo " + std::to_string(batch)});
    CHECK(script.summaryInHandler.state == MXL_FABRICS_TRANSFER_COMPLETED);
    CHECK(script.refused == std::vector<mxlStatus>{MXL_ERR_INVALID_STATE, MXL_ERR_INVALID_STATE, MXL_ERR_INVALID_STATE,
                                                   MXL_ERR_INVALID_STATE, MXL_STATUS_OK, MXL_STATUS_OK});
    // Freed by its own handler.
    mxlFabricsBatchSummary summary{};
    summary.structSize = sizeof(summary);
    CHECK(mxlFabricsBatchGetSummary(initiator, batch, &summary) == MXL_ERR_NOT_FOUND);

    // Replaced: the second handler runs, the first no more; removed: the event is dispatched and counted all the same.
    script.log.clear();
    script.refused.clear();
    REQUIRE(mxlFabricsInitiatorSetEventHandler(initiator, MXL_FABRICS_EVENT_TRANSFER_COMPLETED, &second, &script) == MXL_STATUS_OK);
    auto const next = runBatch(911);
    CHECK(script.log == std::vector<std::string>{"second 0", "batch", "echo " + std::to_string(next)});
    REQUIRE(mxlFabricsInitiatorSetEventHandler(initiator, MXL_FABRICS_EVENT_TRANSFER_COMPLETED, nullptr, nullptr) == MXL_STATUS_OK);
    script.log.clear();
    auto const last = runBatch(911);
    CHECK(script.log == std::vector<std::string>{"batch", "echo " + std::to_string(last)});
    mxlFabricsEventCounters counters{};
    counters.structSize = sizeof(counters);
    REQUIRE(mxlFabricsInitiatorGetEventCounters(initiator, &counters) == MXL_STATUS_OK);
    CHECK(counters.queued + 3 == counters.dispatched);
}

TEST_CASE("initiator events: a full queue keeps every event, in order, until the application dispatches")
{
    auto const transport = tcpLoopback();
    BatchFan fan{transport, "v210_1080p59.94.json", 1, 1};
    auto* initiator = fan.initiator.initiator;
    auto const batch = fan.createBatch();
    for (std::uint64_t index = 920; index < 924; ++index)
    {
        writeGrain(fan.source, index, 2);
        std::uint32_t transfer = 0;
        REQUIRE(mxlFabricsBatchAddGrain(initiator, batch, nullptr, index, 0, 1080, &transfer) == MXL_STATUS_OK);
    }
    REQUIRE(mxlFabricsBatchSubmit(initiator, batch) == MXL_STATUS_OK);
    // Progress without dispatching: the four transfer events and the batch's wait, one in the queue, the rest behind it.
    REQUIRE(settle(fan.initiator, {&fan.receivers[0]->target}, 20s) == MXL_STATUS_OK);
    REQUIRE(fan.summary(batch).state == MXL_FABRICS_TRANSFER_COMPLETED);
    fan.seen.clear();
    REQUIRE(fan.driveUntil([&] { return fan.seen.size() == 5; }));
    for (std::uint32_t i = 0; i < 4; ++i)
    {
        CAPTURE(i);
        CHECK(fan.seen[i].type == MXL_FABRICS_EVENT_TRANSFER_COMPLETED);
    }
    CHECK(fan.seen[4].type == MXL_FABRICS_EVENT_BATCH_COMPLETED);
    CHECK(fan.seen[4].batch.transfersCompleted == 4);
    mxlFabricsEventCounters counters{};
    counters.structSize = sizeof(counters);
    REQUIRE(mxlFabricsInitiatorGetEventCounters(initiator, &counters) == MXL_STATUS_OK);
    CHECK(counters.queueCapacity == 1);
    CHECK(counters.fullWaits == 4);
    CHECK(counters.highWater == 1);
}
