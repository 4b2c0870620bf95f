// Batches that go through: whole grains, slice ranges and sample batches, to two targets or one named target, land byte
// for byte; every transfer ends COMPLETED with bytesPlaced == bytesTotal, its bytesPlaced never decreasing on the way;
// the events name every transfer once and the batch last.
#include "BatchFan.hpp"
#include "SamplePattern.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    // Steps until the batch settled, reading every transfer's status after each step: bytesPlaced must never decrease.
    void settleWatchingBytes(BatchFan& fan, mxlFabricsBatch batch, std::uint32_t transfers)
    {
        std::vector<std::uint64_t> last(transfers, 0);
        std::size_t decreases = 0;
        std::size_t samples = 0;
        auto const watched = [&]
        {
            for (std::uint32_t i = 0; i < transfers; ++i)
            {
                auto const placed = fan.status(batch, i).bytesPlaced;
                decreases += placed < last[i] ? 1U : 0U;
                last[i] = placed;
            }
            ++samples;
            return fan.summary(batch).state != MXL_FABRICS_TRANSFER_WAITING;
        };
        REQUIRE(fan.driveUntil(watched));
        CHECK(decreases == 0);
        CHECK(samples > 1);
    }
}

TEST_CASE(
    "batch: whole grains, slice ranges and a grain to one named target land byte for byte, each transfer COMPLETED with all its bytes")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        BatchFan fan{transport, "v210_1080p59.94.json", 2};
        std::map<std::uint64_t, std::uint64_t> checksums;
        for (std::uint64_t index = 500; index < 506; ++index)
        {
            checksums[index] = writeGrain(fan.source, index, 31);
        }
        auto const grainSize = readBack(fan.source, 500)->info.grainSize;
        auto const slices = readBack(fan.source, 500)->info.totalSlices;

        auto const batch = fan.createBatch();
        std::uint32_t transfer = 0;
        for (std::uint64_t index = 500; index < 504; ++index)
        {
            REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, index, 0, slices, &transfer) == MXL_STATUS_OK);
            CHECK(transfer == index - 500);
        }
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, 504, 0, slices / 2, &transfer) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, 504, slices / 2, slices, &transfer) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, fan.ticket(1), 505, 0, slices, &transfer) == MXL_STATUS_OK);
        REQUIRE(transfer == 6);

        auto const before = fan.summary(batch);
        CHECK(before.submitted == 0);
        CHECK(before.transfers == 7);
        CHECK(before.state == MXL_FABRICS_TRANSFER_WAITING);
        CHECK(fan.status(batch, 6).targets == 1);
        CHECK(fan.status(batch, 0).targets == 2);

        REQUIRE(mxlFabricsBatchSubmit(fan.initiator.initiator, batch) == MXL_STATUS_OK);
        settleWatchingBytes(fan, batch, 7);

        auto const after = fan.summary(batch);
        CHECK(after.submitted == 1);
        CHECK(after.state == MXL_FABRICS_TRANSFER_COMPLETED);
        CHECK(after.transfersCompleted == 7);
        CHECK(after.transfersFailed == 0);
        // Four whole grains and one in two halves to both targets, one whole grain to one: 11 grains' payloads.
        CHECK(after.bytesTotal == 11 * std::uint64_t{grainSize});
        CHECK(after.bytesPlaced == after.bytesTotal);
        for (std::uint32_t i = 0; i < 7; ++i)
        {
            CAPTURE(i);
            auto const status = fan.status(batch, i);
            CHECK(status.state == MXL_FABRICS_TRANSFER_COMPLETED);
            CHECK(status.bytesPlaced == status.bytesTotal);
            CHECK(status.targetsCompleted == status.targets);
            CHECK(status.targetsFailed == 0);
            auto const legs = i == 6 ? std::vector<std::size_t>{1} : std::vector<std::size_t>{0, 1};
            for (auto const receiver : legs)
            {
                auto const leg = fan.targetStatus(batch, i, receiver);
                CHECK(leg.state == MXL_FABRICS_TRANSFER_COMPLETED);
                CHECK(leg.targetId == fan.targetId(receiver));
                CHECK(leg.bytesPlaced == leg.bytesTotal);
                CHECK(std::string{leg.reason}.empty());
            }
        }
        CHECK(fan.status(batch, 0).bytesTotal == 2 * std::uint64_t{grainSize});
        CHECK(fan.status(batch, 4).bytesTotal + fan.status(batch, 5).bytesTotal == 2 * std::uint64_t{grainSize});
        CHECK(fan.status(batch, 6).bytesTotal == grainSize);

        // Commits of different grains may land in any order, and a transfer is COMPLETED once its commit left: wait until
        // each target holds its last grains whole.
        auto const whole = [&](std::size_t receiver, std::uint64_t index)
        {
            mxlGrainInfo info{};
            std::uint8_t* payload = nullptr;
            return mxlFlowReaderGetGrainSliceNonBlocking(fan.receivers[receiver]->flow.reader, index, MXL_GRAIN_VALID_SLICES_ALL, &info,
                                                         &payload) == MXL_STATUS_OK;
        };
        REQUIRE(fan.driveUntil([&] { return whole(1, 505) && whole(1, 504) && whole(0, 504); }));
        for (auto const& [index, checksum] : checksums)
        {
            CAPTURE(index);
            auto const atB = readBack(fan.receivers[1]->flow, index);
            REQUIRE(atB.has_value());
            CHECK(atB->checksum == checksum);
            if (index < 505)
            {
                auto const atA = readBack(fan.receivers[0]->flow, index);
                REQUIRE(atA.has_value());
                CHECK(atA->checksum == checksum);
            }
        }
        // The target the named transfer did not go to never got that grain.
        mxlGrainInfo info{};
        std::uint8_t* payload = nullptr;
        CHECK(mxlFlowReaderGetGrainSliceNonBlocking(fan.receivers[0]->flow.reader, 505, 1, &info, &payload) ==
              MXL_ERR_OUT_OF_RANGE_TOO_EARLY);

        // One TRANSFER_COMPLETED per transfer, of this batch, naming no target; BATCH_COMPLETED last with the counts.
        REQUIRE(fan.driveUntil([&] { return !fan.seenOf(MXL_FABRICS_EVENT_BATCH_COMPLETED).empty(); }, 5s));
        std::set<std::uint32_t> completed;
        for (auto const& event : fan.seenOf(MXL_FABRICS_EVENT_TRANSFER_COMPLETED))
        {
            CHECK(event.transfer.batch == batch);
            CHECK(event.transfer.targetId == 0);
            CHECK(event.transfer.targetsFailed == 0);
            CHECK(event.transfer.targetsCompleted == (event.transfer.transfer == 6 ? 1U : 2U));
            CHECK(completed.insert(event.transfer.transfer).second);
        }
        CHECK(completed == std::set<std::uint32_t>{0, 1, 2, 3, 4, 5, 6});
        CHECK(fan.seenOf(MXL_FABRICS_EVENT_TRANSFER_FAILED).empty());
        REQUIRE(fan.seenOf(MXL_FABRICS_EVENT_BATCH_COMPLETED).size() == 1);
        CHECK(fan.seen.back().type == MXL_FABRICS_EVENT_BATCH_COMPLETED);
        auto const done = fan.seen.back().batch;
        CHECK(done.batch == batch);
        CHECK(done.transfers == 7);
        CHECK(done.transfersCompleted == 7);
        CHECK(done.transfersFailed == 0);
        CHECK(mxlFabricsInitiatorFreeBatch(fan.initiator.initiator, batch) == MXL_STATUS_OK);
    }
}

TEST_CASE("batch: sample batches land intact, each transfer COMPLETED with the samples' bytes")
{
    constexpr std::size_t count = 480;
    constexpr std::uint64_t firstHead = 2'000'000 * count;
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        BatchFan fan{transport, "audio_48k_stereo.json", 2};
        for (auto const& receiver : fan.receivers)
        {
            receiver->startEvents();
        }
        auto const batch = fan.createBatch();
        for (std::uint32_t i = 0; i < 4; ++i)
        {
            auto const head = firstHead + i * count;
            REQUIRE(writePatternSamples(fan.source.writer, head, count, 41));
            std::uint32_t transfer = 0;
            REQUIRE(mxlFabricsBatchAddSamples(fan.initiator.initiator, batch, nullptr, head, count, &transfer) == MXL_STATUS_OK);
            CHECK(transfer == i);
        }
        REQUIRE(mxlFabricsBatchSubmit(fan.initiator.initiator, batch) == MXL_STATUS_OK);
        settleWatchingBytes(fan, batch, 4);
        auto const summary = fan.summary(batch);
        CHECK(summary.state == MXL_FABRICS_TRANSFER_COMPLETED);
        CHECK(summary.transfersCompleted == 4);
        for (std::uint32_t i = 0; i < 4; ++i)
        {
            CAPTURE(i);
            auto const status = fan.status(batch, i);
            // Two channels of 32-bit float words, to two targets; the entry headers are not the flow's bytes.
            CHECK(status.bytesTotal == 2 * count * 2 * sizeof(float));
            CHECK(status.bytesPlaced == status.bytesTotal);
            CHECK(status.state == MXL_FABRICS_TRANSFER_COMPLETED);
        }
        REQUIRE(fan.awaitArrival(firstHead + 3 * count));
        for (auto const& receiver : fan.receivers)
        {
            for (std::uint32_t i = 0; i < 4; ++i)
            {
                CHECK(patternMismatches(receiver->flow.reader, firstHead + i * count, count, 41) == std::optional<std::size_t>{0});
            }
        }
    }
}

TEST_CASE("batch: batch transfers count in the target counters as TransferGrain's do")
{
    auto const transport = tcpLoopback();
    BatchFan fan{transport, "v210_1080p59.94.json", 1};
    writeGrain(fan.source, 600, 3);
    writeGrain(fan.source, 601, 3);
    REQUIRE(mxlFabricsInitiatorTransferGrain(fan.initiator.initiator, 600, 0, 1080) == MXL_STATUS_OK);
    auto const batch = fan.createBatch();
    std::uint32_t transfer = 0;
    REQUIRE(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, fan.ticket(0), 601, 0, 1080, &transfer) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsBatchSubmit(fan.initiator.initiator, batch) == MXL_STATUS_OK);
    REQUIRE(fan.settleBatch(batch));
    CHECK(fan.summary(batch).state == MXL_FABRICS_TRANSFER_COMPLETED);
    mxlFabricsTargetCounters counters{};
    REQUIRE(mxlFabricsInitiatorGetTargetCounters(fan.initiator.initiator, fan.ticket(0), &counters) == MXL_STATUS_OK);
    CHECK(counters.transfersPosted == 2);
    CHECK(counters.transfersSkipped == 0);
    // Only the batch's transfer is an event: TransferGrain's are not.
    CHECK(fan.seenOf(MXL_FABRICS_EVENT_TRANSFER_COMPLETED).size() == 1);
}
