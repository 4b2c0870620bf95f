// RedundantMerge's rules on real flows: two path flows written here as a fabrics target would publish them, and the
// real flow read back byte by byte. Each path fills its grains with its own byte, so the real flow shows which path's
// copy was committed.
#include "bridge/RedundantMerge.hpp"

#include "DomainFlow.hpp"

#include <mxl/flow.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

using namespace mxl::bridge;
using mxl::test::readFile;
using mxl::test::sourcePath;
using Outcome = RedundantMerge::Outcome;

namespace
{
    constexpr std::array<std::uint8_t, 2> pathByte{0xA1, 0xB2};

    // The test video flow, its grains written and read back whole, every byte of one value.
    class TestFlow : public mxl::test::DomainFlow
    {
    public:
        explicit TestFlow(std::string const& tag)
            : DomainFlow{tag, readFile(sourcePath("tests/tools/data/video_v210_100x60p25.json")), "0d7e4a52-6c1b-4f3e-9a80-1b2c3d4e5f60"}
        {
        }

        // Writes grain `index` whole, every byte `fill`, as a target publishes an arrival.
        void publish(std::uint64_t index, std::uint8_t fill) const
        {
            auto const [grain, payload] = open(index);
            std::memset(payload, fill, grain.grainSize);
            auto committed = grain;
            committed.validSlices = committed.totalSlices;
            REQUIRE(::mxlFlowWriterCommitGrain(writer.get(), &committed) == MXL_STATUS_OK);
        }

        // Opens grain `index` and leaves it open, as a later transfer's in-flight mark takes over a slot.
        void reopen(std::uint64_t index) const
        {
            open(index);
        }

        // The byte every payload byte of the committed grain `index` holds; -1 when it is not there whole or the bytes differ.
        [[nodiscard]] int committedByte(std::uint64_t index) const
        {
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            if (::mxlFlowReaderGetGrainNonBlocking(reader.get(), index, &grain, &payload) != MXL_STATUS_OK ||
                grain.validSlices != grain.totalSlices)
            {
                return -1;
            }
            bool const uniform = std::all_of(payload, payload + grain.grainSize, [&](std::uint8_t byte) { return byte == payload[0]; });
            return uniform ? payload[0] : -1;
        }

        std::uint64_t grainCount = writer.config().discrete.grainCount;

    private:
        std::pair<mxlGrainInfo, std::uint8_t*> open(std::uint64_t index) const
        {
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            REQUIRE(::mxlFlowWriterOpenGrain(writer.get(), index, &grain, &payload) == MXL_STATUS_OK);
            return {grain, payload};
        }
    };

    struct Fixture
    {
        TestFlow real{"merge-real"};
        std::array<TestFlow, 2> paths{TestFlow{"merge-path1"}, TestFlow{"merge-path2"}};
        RedundantMerge merge{real.writer.get(), {paths[0].reader.get(), paths[1].reader.get()}};

        // Path `path` publishes grain `index` whole and hands its arrival to the merger.
        Outcome deliver(std::size_t path, std::uint64_t index)
        {
            paths[path].publish(index, pathByte[path]);
            return merge.arrived(path, wholeGrain(index));
        }

        [[nodiscard]] mxlFabricsGrainArrival wholeGrain(std::uint64_t index) const
        {
            return mxlFabricsGrainArrival{index, 1, 1, 0};
        }

        [[nodiscard]] PathCounters const& counters(std::size_t path) const
        {
            return merge.counters()[path];
        }
    };
}

TEST_CASE("redundant merge: the first complete arrival of an index is committed, a second one is late")
{
    Fixture fixture;
    CHECK(fixture.deliver(0, 10) == Outcome::Committed);
    CHECK(fixture.deliver(1, 10) == Outcome::Late);
    CHECK(fixture.deliver(1, 11) == Outcome::Committed);
    CHECK(fixture.deliver(0, 11) == Outcome::Late);
    CHECK(fixture.real.committedByte(10) == pathByte[0]);
    CHECK(fixture.real.committedByte(11) == pathByte[1]);
    CHECK(fixture.counters(0).first == 1);
    CHECK(fixture.counters(0).late == 1);
    CHECK(fixture.counters(1).first == 1);
    CHECK(fixture.counters(1).late == 1);
    CHECK(fixture.counters(0).missing + fixture.counters(1).missing == 0);
}

TEST_CASE("redundant merge: indices the other path committed count missing for a path that skipped them")
{
    Fixture fixture;
    for (std::uint64_t index = 1; index <= 5; ++index)
    {
        CHECK(fixture.deliver(0, index) == Outcome::Committed);
    }
    CHECK(fixture.deliver(1, 1) == Outcome::Late);
    // Path 2 skipped 2 and 3: counted when it delivers 4.
    CHECK(fixture.deliver(1, 4) == Outcome::Late);
    CHECK(fixture.counters(1).missing == 2);
    // Path 2 jumps to 7 (5 missing), and has gone past 6 when path 1 commits that.
    CHECK(fixture.deliver(1, 7) == Outcome::Committed);
    CHECK(fixture.counters(1).missing == 3);
    CHECK(fixture.merge.uncommitted() == 1);
    CHECK(fixture.deliver(0, 6) == Outcome::Committed);
    CHECK(fixture.counters(1).missing == 4);
    // 6 came after 7: the gap it left is filled.
    CHECK(fixture.merge.uncommitted() == 0);
    // Path 1 never delivered 7.
    CHECK(fixture.deliver(0, 8) == Outcome::Committed);
    CHECK(fixture.counters(0).missing == 1);
    // At the end: path 2 never delivered 8 either.
    fixture.merge.finish();
    CHECK(fixture.counters(0).first == 7);
    CHECK(fixture.counters(0).missing == 1);
    CHECK(fixture.counters(1).first == 1);
    CHECK(fixture.counters(1).late == 2);
    CHECK(fixture.counters(1).missing == 5);
    // The grains still in the real flow's ring (the oldest slot is the writer's).
    auto const readable = fixture.real.grainCount - 1;
    REQUIRE(readable >= 2);
    for (auto index = 8 - std::min<std::uint64_t>(readable, 8) + 1; index <= 8; ++index)
    {
        CAPTURE(index);
        CHECK(fixture.real.committedByte(index) == pathByte[index == 7 ? 1 : 0]);
    }
}

TEST_CASE("redundant merge: partial and invalid arrivals are not merged")
{
    Fixture fixture;
    fixture.paths[0].publish(20, pathByte[0]);
    CHECK(fixture.merge.arrived(0, mxlFabricsGrainArrival{20, 0, 1, 0}) == Outcome::Incomplete);
    CHECK(fixture.merge.arrived(0, mxlFabricsGrainArrival{20, 1, 1, MXL_GRAIN_FLAG_INVALID}) == Outcome::Incomplete);
    CHECK(fixture.real.committedByte(20) == -1);
    CHECK(fixture.deliver(1, 20) == Outcome::Committed);
    CHECK(fixture.real.committedByte(20) == pathByte[1]);
    CHECK(fixture.counters(0).first + fixture.counters(0).late + fixture.counters(0).dropped == 0);
}

TEST_CASE("redundant merge: a copy whose path slot moved on is dropped and the other path's arrival is committed")
{
    Fixture fixture;
    auto const ring = fixture.paths[0].grainCount;
    fixture.paths[0].publish(30, pathByte[0]);
    // A later grain's transfer takes over the slot before the merger got to grain 30.
    fixture.paths[0].reopen(30 + ring);
    CHECK(fixture.merge.arrived(0, fixture.wholeGrain(30)) == Outcome::Dropped);
    CHECK(fixture.real.committedByte(30) == -1);
    CHECK(fixture.deliver(1, 30) == Outcome::Committed);
    CHECK(fixture.real.committedByte(30) == pathByte[1]);
    CHECK(fixture.counters(0).dropped == 1);
    CHECK(fixture.counters(0).first == 0);
    CHECK(fixture.counters(1).first == 1);
}

TEST_CASE("redundant merge: an arrival a whole ring behind the newest commit is late and leaves the real flow alone")
{
    Fixture fixture;
    auto const ring = fixture.real.grainCount;
    REQUIRE(ring > 2);
    CHECK(fixture.deliver(0, 100 + ring) == Outcome::Committed);
    // Slot of grain 100 is the slot of 100 + ring: committing it would overwrite the newer grain.
    CHECK(fixture.deliver(1, 100) == Outcome::Late);
    CHECK(fixture.real.committedByte(100 + ring) == pathByte[0]);
    CHECK(fixture.counters(1).late == 1);
    CHECK(fixture.counters(1).first == 0);
}

TEST_CASE("redundant merge: lost counts the indices no path delivered once they are a ring behind the newest commit, all of them at "
          "the end, and never falls")
{
    Fixture fixture;
    auto const ring = fixture.real.grainCount;
    REQUIRE(ring >= 4);
    CHECK(fixture.deliver(0, 1) == Outcome::Committed);
    CHECK(fixture.deliver(0, 3) == Outcome::Committed);
    // 2 may still come: not lost, though uncommitted.
    CHECK(fixture.merge.uncommitted() == 1);
    CHECK(fixture.merge.lost() == 0);
    CHECK(fixture.deliver(1, 2) == Outcome::Committed);
    CHECK(fixture.merge.lost() == 0);
    CHECK(fixture.deliver(0, 5) == Outcome::Committed);
    CHECK(fixture.merge.lost() == 0);
    // 4 is a whole ring behind 4 + ring: late whoever delivers it, so lost.
    CHECK(fixture.deliver(0, 4 + ring) == Outcome::Committed);
    CHECK(fixture.merge.lost() == 1);
    CHECK(fixture.deliver(1, 4) == Outcome::Late);
    CHECK(fixture.merge.lost() == 1);
    // 6 to 3 + ring are uncommitted, within the ring: lost at the end.
    fixture.merge.finish();
    CHECK(fixture.merge.lost() == 1 + (ring - 2));
}
