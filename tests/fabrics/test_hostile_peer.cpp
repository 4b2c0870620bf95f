// A hostile or broken initiator beside an honest one (docs/fabrics.md, "Hostile or broken initiators"): completions
// that name a slot beyond the ring, an end slice beyond the grain, a slot whose header belongs to another slot, a
// bounce-buffer entry beyond the buffer or an entry claiming too many samples, zero-length and oversized writes. The
// target commits nothing outside its ring, does not crash, logs each kind of fault once, and keeps serving the honest
// initiator, whose grains and samples arrive intact.
#include "FabricsHarness.hpp"
#include "HostilePeer.hpp"
#include "Link.hpp"
#include "Skip.hpp"
#include <client/LogCapture.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;
using namespace mxl::client;

namespace
{
    std::uint64_t headOf(mxlFlowReader reader)
    {
        mxlFlowRuntimeInfo runtime{};
        REQUIRE(mxlFlowReaderGetRuntimeInfo(reader, &runtime) == MXL_STATUS_OK);
        return runtime.headIndex;
    }

    // Reads the target for a while: a malformed completion must be skipped (NOT_READY), never committed.
    void drainTarget(Link& link)
    {
        auto const until = std::chrono::steady_clock::now() + 200ms;
        std::size_t arrivals = 0;
        while (std::chrono::steady_clock::now() < until)
        {
            std::uint64_t index = 0;
            auto const status = mxlFabricsTargetReadGrainNonBlocking(link.target.target, &index);
            arrivals += status == MXL_ERR_NOT_READY ? 0 : 1;
        }
        CHECK(arrivals == 0);
    }

    // What the hostile peer runs while it waits: the target's progress (a grain it commits is checked later).
    void driveTarget(Link& link)
    {
        std::uint64_t index = 0;
        static_cast<void>(mxlFabricsTargetReadGrainNonBlocking(link.target.target, &index));
    }

    constexpr char const* malformedLine = "ignored a malformed completion";
}

TEST_CASE("hostile peer: malformed grain completions and writes are skipped, logged once per kind, and an honest initiator beside it "
          "is served")
{
    for (auto const& transport : transports())
    {
        INFO(std::string{transport.label});
        Link link{transport, "v210_1080p59.94.json"};
        if (backendOf(link.targetDomain.fabrics) != "ofi")
        {
            MXL_SKIP("the hostile peer is a raw libfabric endpoint, which cannot reach a ucx target");
        }
        auto const ring = link.destination.config.discrete.grainCount;
        std::uint64_t index = 7600;
        auto const honestGrain = [&]
        {
            auto const checksum = writeGrain(link.source, index, 11);
            link.transfer(index, 0, 1080);
            auto const arrived = readBack(link.destination, index);
            REQUIRE(arrived.has_value());
            CHECK(arrived->checksum == checksum);
            CHECK(headOf(link.destination.reader) == index);
            ++index;
        };
        honestGrain();

        LogCapture capture;
        HostilePeer peer{link.target.ticket, [&] { driveTarget(link); }};
        auto const regionBytes = peer.ticket().regions.front().len;
        // A slot no honest grain of this test uses: its header still holds index 0, which belongs in slot 0.
        auto const unusedSlot = static_cast<std::uint32_t>((index + ring / 2) % ring == 0 ? 1 : (index + ring / 2) % ring);

        SUBCASE("a slot beyond the ring")
        {
            for (int repeat = 0; repeat < 3; ++repeat)
            {
                CHECK(peer.writeRegion(0, 0, 1, 1, static_cast<std::uint32_t>(ring + 7) | (1080U << 16)) == std::optional<int>{0});
                drainTarget(link);
            }
        }
        SUBCASE("an end slice beyond the grain")
        {
            for (int repeat = 0; repeat < 3; ++repeat)
            {
                CHECK(peer.writeRegion(0, 0, 1, 1, 0U | (2000U << 16)) == std::optional<int>{0});
                drainTarget(link);
            }
        }
        SUBCASE("slices written before the grain's header (the slot holds another slot's header)")
        {
            for (int repeat = 0; repeat < 3; ++repeat)
            {
                CHECK(peer.writeRegion(unusedSlot, 8192, 4096, 0x77, unusedSlot | (10U << 16)) == std::optional<int>{0});
                drainTarget(link);
            }
        }
        SUBCASE("a zero-length write with immediate data")
        {
            // shm never completes a zero-byte write at the initiator; the target may still see its immediate data.
            static_cast<void>(peer.write(peer.ticket().regions[unusedSlot].addr, peer.ticket().regions[unusedSlot].rkey, 0, 0,
                                         unusedSlot | (1080U << 16), 500ms));
            drainTarget(link);
        }
        SUBCASE("writes past a region's end and past the last region")
        {
            auto const& last = peer.ticket().regions.back();
            auto const oversized = peer.write(last.addr, last.rkey, regionBytes + 4096, 0x66, std::nullopt, 2s);
            CHECK(oversized != std::optional<int>{0});
            auto const beyond = peer.write(last.addr + regionBytes, last.rkey, 4096, 0x66, std::nullopt, 2s);
            CHECK(beyond != std::optional<int>{0});
            drainTarget(link);
        }

        // The honest initiator goes on, and nothing outside the ring moved.
        for (int grain = 0; grain < 3; ++grain)
        {
            honestGrain();
        }
        auto const text = capture.text();
        INFO("stderr: ", text);
        CHECK(occurrences(text, malformedLine) <= 1);
    }
}

TEST_CASE("hostile peer: a malformed completion is logged once, naming what was wrong")
{
    Link link{transports().front(), "v210_1080p59.94.json"};
    if (backendOf(link.targetDomain.fabrics) != "ofi")
    {
        MXL_SKIP("the hostile peer is a raw libfabric endpoint, which cannot reach a ucx target");
    }
    auto const ring = link.destination.config.discrete.grainCount;
    LogCapture capture;
    HostilePeer peer{link.target.ticket, [&] { driveTarget(link); }};
    for (int repeat = 0; repeat < 5; ++repeat)
    {
        CHECK(peer.writeRegion(0, 0, 1, 1, static_cast<std::uint32_t>(ring + 3 + repeat)) == std::optional<int>{0});
        drainTarget(link);
    }
    auto const text = capture.text();
    INFO("stderr: ", text);
    CHECK(occurrences(text, malformedLine) == 1);
    CHECK(text.find("this target has " + std::to_string(ring) + " slots") != std::string::npos);
}
