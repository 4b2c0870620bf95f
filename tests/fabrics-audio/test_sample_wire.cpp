// The sample protocol's pure pieces (in the SDK's lib/fabrics/ofi/src/internal/: ProtocolEgressRMA.cpp,
// ProtocolIngressRMA.cpp and AudioBounceBuffer.cpp): ring runs with the inclusive-end convention, bounce-buffer sizing,
// channel-major unpacking, and scatter-gather writes cut by the provider's iov limit.
#include "fabrics/protocol/SampleEgress.hpp"
#include "fabrics/protocol/SampleGeometry.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace mxl::fabrics;

TEST_CASE("ring runs end at and include the head index")
{
    // The case of the SDK's lib/tests/fabrics/ofi/test_AudioBounceBuffer.cpp: head 11, count 5, ring 9 → positions
    // 6, 7, 8 then 0, 1.
    CHECK(ringRuns(11, 5, 9) == std::array<RingRun, 2>{RingRun{6, 3}, RingRun{0, 2}});
    CHECK(ringRuns(9, 9, 9) == std::array<RingRun, 2>{RingRun{0, 9}, RingRun{0, 0}});
    CHECK(ringRuns(480, 480, 19456) == std::array<RingRun, 2>{RingRun{0, 480}, RingRun{0, 0}});
    // Heads below the count (the first samples of a flow) do not underflow.
    CHECK(ringRuns(2, 5, 9) == std::array<RingRun, 2>{RingRun{6, 3}, RingRun{0, 2}});
    CHECK(ringRuns(19456 + 100, 480, 19456) == std::array<RingRun, 2>{RingRun{19076, 380}, RingRun{0, 100}});
}

TEST_CASE("a bounce buffer holds a whole ring in entries of one sync batch")
{
    auto const stereo = bounceLayout(SampleGeometry{2, 4, 19456}, 480);
    CHECK(stereo == BounceLayout{41, 16 + 2 * 4 * 480});
    auto const sixteen = bounceLayout(SampleGeometry{16, 4, 9216}, 480);
    CHECK(sixteen == BounceLayout{20, 16 + 16 * 4 * 480});
    CHECK(entryCapacity(sixteen.entryBytes, 16 * 4) == 480);
    CHECK(entryCapacity(15, 8) == 0);
    CHECK(entryCapacity(16 + 8 * 10 + 7, 8) == 10);
}

TEST_CASE("unpacking a channel-major entry touches exactly the range's positions")
{
    // Two channels, ring 9, word 4: payload 103..107 for channel 0, 203..207 for channel 1; head 11, count 5.
    std::vector<std::uint32_t> payload{103, 104, 105, 106, 107, 203, 204, 205, 206, 207};
    std::vector<std::uint32_t> ring(18, 0xEEEEEEEE);
    auto const runs = ringRuns(11, 5, 9);
    auto* base = reinterpret_cast<std::uint8_t*>(ring.data());
    unpackEntry(reinterpret_cast<std::uint8_t const*>(payload.data()), 5, 2, 4, {base + runs[0].offset * 4, base + runs[1].offset * 4},
                {runs[0].count, runs[1].count}, 9 * 4);
    CHECK(ring[6] == 103);
    CHECK(ring[7] == 104);
    CHECK(ring[8] == 105);
    CHECK(ring[0] == 106);
    CHECK(ring[1] == 107);
    CHECK(ring[9 + 6] == 203);
    CHECK(ring[9 + 8] == 205);
    CHECK(ring[9 + 0] == 206);
    CHECK(ring[9 + 1] == 207);
    for (std::size_t position : {2, 3, 4, 5, 9 + 2, 9 + 3, 9 + 4, 9 + 5})
    {
        CHECK(ring[position] == 0xEEEEEEEE);
    }
}

TEST_CASE("scatter-gather payload writes are cut by the iov limit and land back to back behind the entry header")
{
    // A 16-channel transfer that wraps: two runs per channel, 32 local ranges; the header is the separate commit.
    std::vector<std::uint8_t> memory(4096);
    std::vector<LocalSegment> segments;
    for (std::size_t i = 0; i < 32; ++i)
    {
        segments.push_back({memory.data() + 16 + i * 10, i % 2 == 0 ? std::size_t{6} : std::size_t{4}, nullptr});
    }
    auto const writes = gatherWrites(segments, 4, 7, 16);
    REQUIRE(writes.size() == 8);
    for (std::size_t i = 0; i < writes.size(); ++i)
    {
        auto const& write = writes[i];
        REQUIRE(write.segments.size() == 4);
        CHECK(write.segments.front().base == segments[4 * i].base);
        CHECK(write.remoteRegion == 7);
        // Four ranges of 6, 4, 6 and 4 bytes each, back to back after the 16-byte header.
        CHECK(write.length() == 20);
        CHECK(write.remoteOffset == 16 + 20 * i);
        CHECK_FALSE(write.immediate.has_value());
    }
    // Everything lands back to back after the header: 16 × 10 bytes.
    CHECK(writes.back().remoteOffset + writes.back().length() == 16 + 16 * 10);
    CHECK(gatherWrites(segments, 64, 0, 0).size() == 1);
}
