// Read safety across the fabric (docs/fabrics.md, "Read safety"): a grain whose source slot the writer reopened before
// the target had read it is committed at the target flagged MXL_GRAIN_FLAG_INVALID, never as valid with bytes the source
// wrote for another grain. shm is deterministic here: a write's bytes are copied by the target's own progress, so a
// target that is not driven has read nothing. tcp buffers what fits in the sockets, so a 2160p grain is used there.
#include "FabricsHarness.hpp"
#include "Link.hpp"

#include <mxl/fabrics_state.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    // The writer reopens the slot of `index` for a later grain and fills half of its payload, as a live source does
    // while a late target has not read the slot yet.
    void reopenSlotHalfWritten(Flow& source, std::uint64_t index)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowWriterOpenGrain(source.writer, index, &info, &payload) == MXL_STATUS_OK);
        std::memset(payload, 0x5A, info.grainSize / 2);
    }

    // Drives the initiator and reads the target until a grain arrives; nullopt after `timeout`.
    std::optional<std::uint64_t> nextArrival(Link& link, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline)
        {
            static_cast<void>(mxlFabricsInitiatorMakeProgressNonBlocking(link.initiator.initiator));
            std::uint64_t index = 0;
            auto const status = mxlFabricsTargetReadGrainNonBlocking(link.target.target, &index);
            if (status == MXL_STATUS_OK)
            {
                return index;
            }
            if (status != MXL_ERR_NOT_READY)
            {
                FAIL("reading the target gave mxlStatus " << status);
            }
        }
        return std::nullopt;
    }

    mxlFabricsTargetCounters countersOf(Link& link)
    {
        mxlFabricsTargetCounters counters{};
        REQUIRE(mxlFabricsInitiatorGetTargetCounters(link.initiator.initiator, link.target.ticket, &counters) == MXL_STATUS_OK);
        return counters;
    }

    // What the target holds for `index`: nullopt when no grain of that index is readable there.
    std::optional<mxlGrainInfo> targetGrain(Link& link, std::uint64_t index)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        if (mxlFlowReaderGetGrainSliceNonBlocking(link.destination.reader, index, MXL_GRAIN_VALID_SLICES_ANY, &info, &payload) !=
            MXL_STATUS_OK)
        {
            return std::nullopt;
        }
        return info;
    }

    // Sends grain `index`, lets the writer reopen its source slot before the target progresses at all, then checks that
    // the target commits `index` either intact (the provider had read it in time) or INVALID with no valid slices, and
    // never the later grain. Returns whether it was invalidated.
    bool sendWhileSourceMovesOn(Link& link, std::uint64_t index, std::uint16_t start, std::uint16_t end, std::uint64_t checksum)
    {
        auto const ring = link.source.config.discrete.grainCount;
        REQUIRE(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, index, start, end) == MXL_STATUS_OK);
        reopenSlotHalfWritten(link.source, index + ring);

        auto const arrived = nextArrival(link, 30s);
        REQUIRE(arrived.has_value());
        CHECK(*arrived == index);
        REQUIRE(settle(link.initiator, {&link.target}, 5s) == MXL_STATUS_OK);
        CHECK_FALSE(targetGrain(link, index + ring).has_value());
        auto const grain = targetGrain(link, index);
        REQUIRE(grain.has_value());
        auto const invalidated = (grain->flags & MXL_GRAIN_FLAG_INVALID) != 0;
        if (invalidated)
        {
            CHECK(grain->validSlices == 0);
        }
        else
        {
            auto const intact = readBack(link.destination, index, end);
            REQUIRE(intact.has_value());
            CHECK(intact->checksum == checksum);
        }
        CHECK(countersOf(link).transfersInvalidated == (invalidated ? 1U : 0U));
        return invalidated;
    }
}

TEST_CASE("read safety: a whole grain whose source slot is reopened before the target read it arrives INVALID (shm)")
{
    Link link{shmTransport(), "v210_1080p59.94.json"};
    std::uint64_t const index = 7000;
    auto const checksum = writeGrain(link.source, index, 3);
    CHECK(sendWhileSourceMovesOn(link, index, 0, 1080, checksum));
}

TEST_CASE("read safety: a slice range whose source slot is reopened before the target read it makes the grain INVALID (shm)")
{
    Link link{shmTransport(), "v210_1080p59.94.json"};
    std::uint64_t const index = 7100;
    auto const checksum = writeGrain(link.source, index, 4);
    link.transfer(index, 0, 540);
    auto const half = readBack(link.destination, index, 540);
    REQUIRE(half.has_value());
    CHECK(half->info.validSlices == 540);
    CHECK(sendWhileSourceMovesOn(link, index, 540, 1080, checksum));
}

TEST_CASE("read safety: over tcp a 2160p grain whose source slot is reopened arrives intact or INVALID, never mixed")
{
    Link link{Transport{"tcp", MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "127.0.0.1"}, "v210_2160p59.94.json"};
    std::uint64_t const index = 7200;
    auto const checksum = writeGrain(link.source, index, 5);
    auto const invalidated = sendWhileSourceMovesOn(link, index, 0, 2160, checksum);
    MESSAGE("tcp: the grain was " << std::string{invalidated ? "invalidated" : "read in time and arrived intact"});
}

TEST_CASE("read safety: a grain already gone from the source when it is transferred arrives INVALID without being read")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        Link link{transport, "v210_1080p59.94.json"};
        auto const ring = link.source.config.discrete.grainCount;
        std::uint64_t const index = 7300;
        writeGrain(link.source, index, 6);
        reopenSlotHalfWritten(link.source, index + ring);
        REQUIRE(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, index, 0, 1080) == MXL_STATUS_OK);
        auto const arrived = nextArrival(link, 30s);
        REQUIRE(arrived.has_value());
        CHECK(*arrived == index);
        REQUIRE(settle(link.initiator, {&link.target}, 5s) == MXL_STATUS_OK);
        auto const grain = targetGrain(link, index);
        REQUIRE(grain.has_value());
        CHECK((grain->flags & MXL_GRAIN_FLAG_INVALID) != 0);
        CHECK(grain->validSlices == 0);
        CHECK(grain->totalSlices == 1080);
        CHECK(countersOf(link).transfersInvalidated == 1);

        // The next grain goes through whole.
        auto const checksum = writeGrain(link.source, index + 1, 6);
        link.transfer(index + 1, 0, 1080);
        auto const next = readBack(link.destination, index + 1);
        REQUIRE(next.has_value());
        CHECK(next->checksum == checksum);
        CHECK((next->info.flags & MXL_GRAIN_FLAG_INVALID) == 0);
    }
}

TEST_CASE("read safety: grains posted several deep are each committed once, intact and in order")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        Link link{transport, "v210_1080p59.94.json"};
        auto const depth = std::min<std::uint64_t>(6, link.source.config.discrete.grainCount - 2);
        std::uint64_t const first = 7400;
        for (int round = 0; round < 4; ++round)
        {
            auto const from = first + static_cast<std::uint64_t>(round) * depth;
            std::vector<std::uint64_t> checksums;
            for (auto index = from; index < from + depth; ++index)
            {
                checksums.push_back(writeGrain(link.source, index, 8));
                REQUIRE(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, index, 0, 1080) == MXL_STATUS_OK);
            }
            std::vector<std::uint64_t> arrivals;
            while (auto const arrived = nextArrival(link, arrivals.size() < depth ? 30s : 200ms))
            {
                arrivals.push_back(*arrived);
            }
            std::vector<std::uint64_t> expected(depth);
            std::iota(expected.begin(), expected.end(), from);
            CHECK(arrivals == expected);
            for (std::uint64_t i = 0; i < depth; ++i)
            {
                auto const grain = readBack(link.destination, from + i);
                REQUIRE(grain.has_value());
                CHECK(grain->checksum == checksums[i]);
            }
        }
        CHECK(countersOf(link).transfersInvalidated == 0);
    }
}

TEST_CASE("read safety: a target that missed a grain's first slices gets the grain from slice 0 with a later range")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        Link link{transport, "v210_1080p59.94.json"};
        std::uint64_t const index = 7500;
        auto const checksum = writeGrain(link.source, index, 9);
        // Only the first target is there while the first half of the grain goes out.
        link.transfer(index, 0, 540);

        FlowDomain lateDomain{"fab-late"};
        Flow late{lateDomain, flowDefinition("v210_1080p59.94.json")};
        auto const* const lateNode = transport.provider == MXL_FABRICS_PROVIDER_SHM ? nullptr : transport.targetNode.c_str();
        TargetEnd lateTarget{lateDomain, late, interfaceConfig(transport.provider, lateNode, nullptr)};
        REQUIRE(lateTarget.setupStatus == MXL_STATUS_OK);
        REQUIRE(mxlFabricsInitiatorAddTarget(link.initiator.initiator, lateTarget.ticket) == MXL_STATUS_OK);
        REQUIRE(settle(link.initiator, {&link.target, &lateTarget}, 5s) == MXL_STATUS_OK);

        REQUIRE(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, index, 540, 1080) == MXL_STATUS_OK);
        CHECK(receive(link.initiator, link.target, 5s) == index);
        CHECK(receive(link.initiator, lateTarget, 5s) == index);
        REQUIRE(settle(link.initiator, {&link.target, &lateTarget}, 5s) == MXL_STATUS_OK);

        // Both hold the source's grain byte for byte: the late target's first half came with the second, never its
        // slot's old bytes under the grain's valid header.
        auto const first = readBack(link.destination, index);
        REQUIRE(first.has_value());
        CHECK(first->checksum == checksum);
        auto const second = readBack(late, index);
        REQUIRE(second.has_value());
        CHECK((second->info.flags & MXL_GRAIN_FLAG_INVALID) == 0);
        CHECK(second->info.validSlices == 1080);
        CHECK(second->checksum == checksum);
    }
}
