// The sender's source cursors of lib/bridge on a real flow written with the C API: by slices, a grain cursor gives each
// slice range as its writer commits it and goes on with the next grain after the last range (or at once when a range
// was not delivered); whole, it waits for the whole grain; a grain the ring overwrote is reported gone, the grains
// skipped counted, and the cursor goes on with a grain the ring still holds.
#include "bridge/SourceCursor.hpp"

#include "DomainFlow.hpp"

#include <mxl/flow.h>
#include <mxl/time.h>

#include <doctest/doctest.h>

#include <memory>
#include <string>

using mxl::bridge::GrainReading;
using mxl::bridge::SourceCursor;

namespace
{
    // flows/v210_1080p25.json: 1080 slices of one line each.
    constexpr auto cursorFlowId = "5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13";
    constexpr std::uint16_t cursorSlices = 1080;

    // A writer and a reader of one 1080p25 flow in a fresh domain.
    struct CursorFlow : mxl::test::DomainFlow
    {
        CursorFlow()
            : DomainFlow{"bridge-cursor", mxl::test::readFile(mxl::test::sourcePath("flows/v210_1080p25.json")), cursorFlowId}
        {
        }

        // Opens grain `index` and commits its first `slices` slices; the grain stays open for more.
        mxlGrainInfo open(std::uint64_t index, std::uint16_t slices)
        {
            mxlGrainInfo info{};
            std::uint8_t* payload = nullptr;
            REQUIRE(mxlFlowWriterOpenGrain(writer.get(), index, &info, &payload) == MXL_STATUS_OK);
            info.flags = 0;
            commit(info, slices);
            return info;
        }

        void commit(mxlGrainInfo& info, std::uint16_t slices)
        {
            info.validSlices = slices;
            REQUIRE(mxlFlowWriterCommitGrain(writer.get(), &info) == MXL_STATUS_OK);
        }

        // A cursor at the present grain, and that grain's index.
        std::pair<std::unique_ptr<SourceCursor>, std::uint64_t> cursorAtPresent(GrainReading reading)
        {
            auto const& rate = writer.config().common.grainRate;
            auto cursor = mxl::bridge::makeSourceCursor(reader.get(), writer.config(), cursorFlowId, reading);
            for (;;)
            {
                auto const before = mxlGetCurrentIndex(&rate);
                CHECK(cursor->startAtPresent() == 0);
                // A grain boundary passed meanwhile: the cursor stands at one of the two, so ask again.
                if (mxlGetCurrentIndex(&rate) == before)
                {
                    return {std::move(cursor), before};
                }
            }
        }
    };

    void checkReady(SourceCursor::Read const& read, std::uint64_t index, std::uint16_t firstSlice, std::uint16_t endSlice, bool completes,
                    std::uint64_t bytesPerSlice)
    {
        REQUIRE(read.outcome == SourceCursor::Outcome::Ready);
        CHECK(read.unit.index == index);
        CHECK(read.unit.startSlice == firstSlice);
        CHECK(read.unit.endSlice == endSlice);
        CHECK(read.unit.completesGrain == completes);
        CHECK(read.unit.bytes == (endSlice - firstSlice) * bytesPerSlice);
    }
}

TEST_CASE("grain cursor by slices: each slice range as the writer commits it, then the next grain, and an undelivered range "
          "moves on to the next grain")
{
    CursorFlow flow;
    auto const bytesPerSlice = std::uint64_t{flow.writer.config().discrete.sliceSizes[0]};
    auto [cursor, first] = flow.cursorAtPresent(GrainReading::BySlices);

    auto grain = flow.open(first, 300);
    checkReady(cursor->read(), first, 0, 300, false, bytesPerSlice);
    cursor->advance(true);
    flow.commit(grain, cursorSlices);
    checkReady(cursor->read(), first, 300, cursorSlices, true, bytesPerSlice);
    cursor->advance(true);

    // Not written yet: nothing is due.
    CHECK(cursor->read().outcome == SourceCursor::Outcome::NotDue);
    flow.open(first + 1, 500);
    checkReady(cursor->read(), first + 1, 0, 500, false, bytesPerSlice);
    // Its target did not take the first range: the rest of the grain is not sent.
    cursor->advance(false);
    flow.open(first + 2, cursorSlices);
    checkReady(cursor->read(), first + 2, 0, cursorSlices, true, bytesPerSlice);
}

TEST_CASE("grain cursor whole: a grain is ready once complete, and grains the ring overwrote are gone, counted, and skipped")
{
    CursorFlow flow;
    auto const bytesPerSlice = std::uint64_t{flow.writer.config().discrete.sliceSizes[0]};
    auto const ring = flow.writer.config().discrete.grainCount;
    auto [cursor, first] = flow.cursorAtPresent(GrainReading::Whole);

    auto grain = flow.open(first, 300);
    CHECK(cursor->read().outcome == SourceCursor::Outcome::NotDue);
    flow.commit(grain, cursorSlices);
    checkReady(cursor->read(), first, 0, cursorSlices, true, bytesPerSlice);
    cursor->advance(true);

    // A whole ring and two more: the slots of grains first + 1 and first + 2 hold later grains now.
    for (std::uint64_t index = first + 1; index <= first + ring + 2; ++index)
    {
        flow.open(index, cursorSlices);
    }
    std::uint64_t skipped = 0;
    auto read = cursor->read();
    while (read.outcome == SourceCursor::Outcome::Gone)
    {
        skipped += read.skippedUnits;
        read = cursor->read();
    }
    CHECK(skipped >= 2);
    checkReady(read, first + 1 + skipped, 0, cursorSlices, true, bytesPerSlice);
}

TEST_CASE("grain cursor: after its position is forgotten (sending stopped on purpose) it starts at the present and skips nothing")
{
    CursorFlow flow;
    auto const& rate = flow.writer.config().common.grainRate;
    auto [kept, keptAt] = flow.cursorAtPresent(GrainReading::Whole);
    auto [forgotten, forgottenAt] = flow.cursorAtPresent(GrainReading::Whole);
    // Two grains of pause at 25 a second.
    auto const resumeAt = std::max(keptAt, forgottenAt) + 2;
    while (mxlGetCurrentIndex(&rate) < resumeAt)
    {
        mxlSleepForNs(5'000'000);
    }
    forgotten->forgetPosition();
    CHECK(forgotten->startAtPresent() == 0);
    CHECK(kept->startAtPresent() >= 2);
}
