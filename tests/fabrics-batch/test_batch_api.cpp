// Bad input to the batch and initiator event calls gives the documented status, and nothing is sent.
#include "BatchFan.hpp"

#include <doctest/doctest.h>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

TEST_CASE("batch api: null handles, unknown targets and batches, slice ranges out of the grain, and freed batches are refused")
{
    auto const transport = tcpLoopback();
    BatchFan fan{transport, "v210_1080p59.94.json", 1};
    auto* initiator = fan.initiator.initiator;
    std::uint32_t transfer = 99;
    mxlFabricsBatch batch = 0;

    CHECK(mxlFabricsInitiatorCreateBatch(nullptr, &batch) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsInitiatorCreateBatch(initiator, nullptr) == MXL_ERR_INVALID_ARG);
    batch = fan.createBatch();
    CHECK(batch == 1);
    CHECK(mxlFabricsBatchAddGrain(nullptr, batch, nullptr, 1, 0, 1080, &transfer) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsBatchAddGrain(initiator, batch, nullptr, 1, 0, 1080, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsBatchAddGrain(initiator, 0, nullptr, 1, 0, 1080, &transfer) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchAddGrain(initiator, 77, nullptr, 1, 0, 1080, &transfer) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchAddGrain(initiator, batch, nullptr, 1, 0, 1081, &transfer) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsBatchAddGrain(initiator, batch, nullptr, 1, 600, 500, &transfer) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsBatchAddSamples(initiator, batch, nullptr, 1, 48, &transfer) == MXL_ERR_INVALID_STATE);
    CHECK(transfer == 99);

    // A ticket of a target this initiator was never given.
    Receiver stranger{transport, "v210_1080p59.94.json", "batch-stranger"};
    CHECK(mxlFabricsBatchAddGrain(initiator, batch, stranger.target.ticket, 1, 0, 1080, &transfer) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchSubmit(initiator, batch) == MXL_ERR_INVALID_STATE);

    writeGrain(fan.source, 1, 1);
    REQUIRE(mxlFabricsBatchAddGrain(initiator, batch, fan.ticket(0), 1, 0, 1080, &transfer) == MXL_STATUS_OK);
    CHECK(transfer == 0);

    mxlFabricsTransferStatus status{};
    status.structSize = sizeof(status) - 1;
    CHECK(mxlFabricsBatchGetTransferStatus(initiator, batch, 0, &status) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsBatchGetTransferStatus(initiator, batch, 0, nullptr) == MXL_ERR_INVALID_ARG);
    status.structSize = sizeof(status);
    CHECK(mxlFabricsBatchGetTransferStatus(initiator, batch, 1, &status) == MXL_ERR_NOT_FOUND);
    REQUIRE(mxlFabricsBatchGetTransferStatus(initiator, batch, 0, &status) == MXL_STATUS_OK);
    CHECK(status.state == MXL_FABRICS_TRANSFER_WAITING);
    CHECK(status.targets == 1);
    CHECK(status.bytesTotal == 0);

    mxlFabricsTransferTargetStatus leg{};
    leg.structSize = sizeof(leg);
    CHECK(mxlFabricsBatchGetTargetStatus(initiator, batch, 0, 1, &leg) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchGetTargetStatusOf(initiator, batch, 0, stranger.target.ticket, &leg) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchGetTargetStatusOf(initiator, batch, 0, nullptr, &leg) == MXL_ERR_INVALID_ARG);
    REQUIRE(mxlFabricsBatchGetTargetStatus(initiator, batch, 0, 0, &leg) == MXL_STATUS_OK);
    CHECK(leg.targetId == fan.targetId(0));
    CHECK(leg.state == MXL_FABRICS_TRANSFER_WAITING);

    REQUIRE(mxlFabricsBatchSubmit(initiator, batch) == MXL_STATUS_OK);
    CHECK(mxlFabricsBatchSubmit(initiator, batch) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsBatchAddGrain(initiator, batch, nullptr, 1, 0, 1080, &transfer) == MXL_ERR_INVALID_STATE);
    REQUIRE(fan.settleBatch(batch));

    // A freed batch is gone for every call; its id is never given out again.
    REQUIRE(mxlFabricsInitiatorFreeBatch(initiator, batch) == MXL_STATUS_OK);
    CHECK(mxlFabricsInitiatorFreeBatch(initiator, batch) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchAddGrain(initiator, batch, nullptr, 1, 0, 1080, &transfer) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchSubmit(initiator, batch) == MXL_ERR_NOT_FOUND);
    CHECK(mxlFabricsBatchGetTransferStatus(initiator, batch, 0, &status) == MXL_ERR_NOT_FOUND);
    mxlFabricsBatchSummary summary{};
    summary.structSize = sizeof(summary);
    CHECK(mxlFabricsBatchGetSummary(initiator, batch, &summary) == MXL_ERR_NOT_FOUND);
    CHECK(fan.createBatch() == batch + 1);
}

TEST_CASE("batch api: a sample batch of no samples, grains on a sample flow, and an initiator not set up are refused")
{
    auto const transport = tcpLoopback();
    BatchFan fan{transport, "audio_48k_stereo.json", 1};
    auto const batch = fan.createBatch();
    std::uint32_t transfer = 0;
    CHECK(mxlFabricsBatchAddSamples(fan.initiator.initiator, batch, nullptr, 480, 0, &transfer) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsBatchAddGrain(fan.initiator.initiator, batch, nullptr, 1, 0, 1, &transfer) == MXL_ERR_INVALID_STATE);

    mxlFabricsInitiator bare = nullptr;
    REQUIRE(mxlFabricsCreateInitiator(fan.sourceDomain.fabrics, &bare) == MXL_STATUS_OK);
    mxlFabricsBatch bareBatch = 0;
    REQUIRE(mxlFabricsInitiatorCreateBatch(bare, &bareBatch) == MXL_STATUS_OK);
    CHECK(mxlFabricsBatchAddSamples(bare, bareBatch, nullptr, 480, 48, &transfer) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsBatchSubmit(bare, bareBatch) == MXL_ERR_INVALID_STATE);
    REQUIRE(mxlFabricsDestroyInitiator(fan.sourceDomain.fabrics, bare) == MXL_STATUS_OK);
}

TEST_CASE("initiator events api: start twice, dispatch and emit before start, library types and short structs are refused")
{
    auto const transport = tcpLoopback();
    BatchFan fan{transport, "v210_1080p59.94.json", 1};
    auto* initiator = fan.initiator.initiator;
    int fd = -1;
    CHECK(mxlFabricsInitiatorStartEvents(initiator, 0, &fd) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsInitiatorStartEvents(nullptr, 0, &fd) == MXL_ERR_INVALID_ARG);
    mxlFabricsEvent event{};
    event.structSize = sizeof(event);
    event.type = MXL_FABRICS_EVENT_TRANSFER_COMPLETED;
    CHECK(mxlFabricsInitiatorEmitEvent(initiator, &event) == MXL_ERR_INVALID_ARG);
    event.type = MXL_FABRICS_EVENT_USER;
    event.structSize = 8;
    CHECK(mxlFabricsInitiatorEmitEvent(initiator, &event) == MXL_ERR_INVALID_ARG);
    mxlFabricsEventCounters counters{};
    counters.structSize = 8;
    CHECK(mxlFabricsInitiatorGetEventCounters(initiator, &counters) == MXL_ERR_INVALID_ARG);

    REQUIRE(mxlFabricsInitiatorStopEvents(initiator) == MXL_STATUS_OK);
    CHECK(mxlFabricsInitiatorStopEvents(initiator) == MXL_STATUS_OK);
    std::size_t dispatched = 0;
    CHECK(mxlFabricsInitiatorDispatchEvents(initiator, 0, &dispatched) == MXL_ERR_INVALID_STATE);
    event.structSize = sizeof(event);
    CHECK(mxlFabricsInitiatorEmitEvent(initiator, &event) == MXL_ERR_INVALID_STATE);
    counters.structSize = sizeof(counters);
    CHECK(mxlFabricsInitiatorGetEventCounters(initiator, &counters) == MXL_ERR_INVALID_STATE);
    // Without events started, batches run all the same and nothing is queued.
    writeGrain(fan.source, 5, 5);
    auto const batch = fan.createBatch();
    std::uint32_t transfer = 0;
    REQUIRE(mxlFabricsBatchAddGrain(initiator, batch, nullptr, 5, 0, 1080, &transfer) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsBatchSubmit(initiator, batch) == MXL_STATUS_OK);
    fan.fd = -1;
    REQUIRE(fan.settleBatch(batch));
    CHECK(fan.summary(batch).state == MXL_FABRICS_TRANSFER_COMPLETED);
}
