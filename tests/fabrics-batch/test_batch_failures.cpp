// Batches that partly fail: a target destroyed mid-way fails exactly the transfers to it that had not completed, with a
// reason naming it, while those to the other target complete; a target already gone fails the transfers of later
// batches at submit. A batch freed in flight goes on without it.
#include "BatchFan.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

TEST_CASE("batch: a target destroyed mid-way fails exactly the transfers to it, the other target's complete (tcp)")
{
    auto const transport = tcpLoopback();
    BatchFan fan{transport, "v210_1080p59.94.json", 2};
    auto const idA = fan.targetId(0);
    auto const idB = fan.targetId(1);
    REQUIRE(idA != idB);
    for (std::uint64_t index = 700; index < 710; ++index)
    {
        writeGrain(fan.source, index, 57);
    }
    auto const grainSize = readBack(fan.source, 700)->info.grainSize;
    constexpr std::uint32_t transfers = 6;

    auto const batch = fan.createBatch();
    for (std::uint32_t i = 0; i < transfers; ++i)
    {
        std::uint32_t transfer = 0;
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, 700 + i, 0, 1080, &transfer) == MXL_STATUS_OK);
    }
    REQUIRE(mxlFabricsBatchSubmit(fan.initiator.initiator, batch) == MXL_STATUS_OK);
    // Whatever reached target B before it goes stays completed; everything else to it must fail.
    std::vector<bool> completedAtB;
    for (std::uint32_t i = 0; i < transfers; ++i)
    {
        completedAtB.push_back(fan.targetStatus(batch, i, 1).state == MXL_FABRICS_TRANSFER_COMPLETED);
    }
    auto& receiverB = *fan.receivers[1];
    REQUIRE(mxlFabricsDestroyTarget(receiverB.domain.fabrics, receiverB.target.target) == MXL_STATUS_OK);
    receiverB.target.target = nullptr;

    REQUIRE(fan.settleBatch(batch));
    REQUIRE(fan.driveUntil([&] { return !fan.seenOf(MXL_FABRICS_EVENT_BATCH_COMPLETED).empty(); }, 5s));
    std::uint32_t failedAtB = 0;
    for (std::uint32_t i = 0; i < transfers; ++i)
    {
        CAPTURE(i);
        auto const atA = fan.targetStatus(batch, i, 0);
        CHECK(atA.state == MXL_FABRICS_TRANSFER_COMPLETED);
        CHECK(atA.targetId == idA);
        CHECK(atA.bytesTotal == grainSize);
        CHECK(atA.bytesPlaced == grainSize);
        auto const atB = fan.targetStatus(batch, i, 1);
        CHECK(atB.targetId == idB);
        auto const status = fan.status(batch, i);
        CHECK(status.targets == 2);
        if (completedAtB[i])
        {
            CHECK(atB.state == MXL_FABRICS_TRANSFER_COMPLETED);
            CHECK(status.state == MXL_FABRICS_TRANSFER_COMPLETED);
            continue;
        }
        ++failedAtB;
        CHECK(atB.state == MXL_FABRICS_TRANSFER_FAILED);
        CHECK(atB.bytesPlaced <= atB.bytesTotal);
        std::string const reason{atB.reason};
        MESSAGE("transfer " << i << " to B: " << reason);
        CHECK(reason.find("target " + std::to_string(idB)) != std::string::npos);
        CHECK(status.state == MXL_FABRICS_TRANSFER_FAILED);
        CHECK(status.targetsCompleted == 1);
        CHECK(status.targetsFailed == 1);
    }
    CHECK(failedAtB > 0);

    auto const summary = fan.summary(batch);
    CHECK(summary.state == MXL_FABRICS_TRANSFER_FAILED);
    CHECK(summary.transfersFailed == failedAtB);
    CHECK(summary.transfersCompleted == transfers - failedAtB);
    // The events say the same: every failed transfer names B, the batch event comes last with the counts.
    auto const failedEvents = fan.seenOf(MXL_FABRICS_EVENT_TRANSFER_FAILED);
    CHECK(failedEvents.size() == failedAtB);
    for (auto const& event : failedEvents)
    {
        CHECK(event.transfer.batch == batch);
        CHECK(event.transfer.targetId == idB);
        CHECK(event.transfer.targetsFailed == 1);
        CHECK_FALSE(completedAtB.at(event.transfer.transfer));
        CHECK(std::string{event.transfer.reason}.find("target " + std::to_string(idB)) != std::string::npos);
    }
    CHECK(fan.seenOf(MXL_FABRICS_EVENT_TRANSFER_COMPLETED).size() == transfers - failedAtB);
    auto const batchEvents = fan.seenOf(MXL_FABRICS_EVENT_BATCH_COMPLETED);
    REQUIRE(batchEvents.size() == 1);
    CHECK(batchEvents[0].batch.transfersFailed == failedAtB);
    auto const disconnected = fan.seenOf(MXL_FABRICS_EVENT_TARGET_DISCONNECTED);
    REQUIRE(disconnected.size() == 1);
    CHECK(disconnected[0].target.targetId == idB);
    CHECK(std::string{disconnected[0].target.reason}.size() > 0);

    // A later batch: B is not connected, so its transfers to B fail at submit; A's go through.
    auto const later = fan.createBatch();
    for (std::uint32_t i = 0; i < 2; ++i)
    {
        std::uint32_t transfer = 0;
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, later, nullptr, 706 + i, 0, 1080, &transfer) == MXL_STATUS_OK);
    }
    REQUIRE(mxlFabricsBatchSubmit(fan.initiator.initiator, later) == MXL_STATUS_OK);
    REQUIRE(fan.settleBatch(later));
    for (std::uint32_t i = 0; i < 2; ++i)
    {
        CAPTURE(i);
        CHECK(fan.targetStatus(later, i, 0).state == MXL_FABRICS_TRANSFER_COMPLETED);
        auto const atB = fan.targetStatus(later, i, 1);
        CHECK(atB.state == MXL_FABRICS_TRANSFER_FAILED);
        CHECK(atB.bytesTotal == 0);
        CHECK(std::string{atB.reason}.find("is not connected") != std::string::npos);
    }
    REQUIRE(fan.awaitArrival(707));
    CHECK(readBack(fan.receivers[0]->flow, 707).has_value());
    mxlFabricsTargetCounters counters{};
    REQUIRE(mxlFabricsInitiatorGetTargetCounters(fan.initiator.initiator, fan.ticket(1), &counters) == MXL_STATUS_OK);
    CHECK(counters.transfersSkipped >= 2);
}

TEST_CASE("batch: a batch freed in flight goes on without it and queues no further event")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        BatchFan fan{transport, "v210_1080p59.94.json", 1};
        auto const checksum = writeGrain(fan.source, 800, 9);
        writeGrain(fan.source, 801, 9);
        auto const batch = fan.createBatch();
        std::uint32_t transfer = 0;
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, 800, 0, 1080, &transfer) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, 801, 0, 1080, &transfer) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsBatchSubmit(fan.initiator.initiator, batch) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsInitiatorFreeBatch(fan.initiator.initiator, batch) == MXL_STATUS_OK);

        mxlFabricsBatchSummary summary{};
        summary.structSize = sizeof(summary);
        CHECK(mxlFabricsBatchGetSummary(fan.initiator.initiator, batch, &summary) == MXL_ERR_NOT_FOUND);
        CHECK(mxlFabricsInitiatorFreeBatch(fan.initiator.initiator, batch) == MXL_ERR_NOT_FOUND);
        REQUIRE(fan.awaitArrival(801));
        REQUIRE(fan.driveUntil([&] { return mxlFabricsInitiatorMakeProgressNonBlocking(fan.initiator.initiator) == MXL_STATUS_OK; }));
        CHECK(readBack(fan.receivers[0]->flow, 800)->checksum == checksum);
        fan.step();
        CHECK(fan.seenOf(MXL_FABRICS_EVENT_TRANSFER_COMPLETED).empty());
        CHECK(fan.seenOf(MXL_FABRICS_EVENT_BATCH_COMPLETED).empty());

        // Ids are not reused: the next batch is another.
        CHECK(fan.createBatch() == batch + 1);
    }
}
