// The target's checks of an arrived entry, before it touches the flow: entry index, sample count, and entries that a
// later batch overwrote before they were read.
#include "FabricsHarness.hpp"
#include "SamplePattern.hpp"
#include "common/Status.hpp"
#include "fabrics/protocol/SampleIngress.hpp"

#include <doctest/doctest.h>

#include <cstring>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using mxl::fabrics::wire::SampleEntryHeader;
using mxl::fabrics::SampleIngress;

namespace
{
    template <typename Body>
    mxlStatus statusOf(Body&& body)
    {
        try
        {
            body();
            return MXL_STATUS_OK;
        }
        catch (mxl::Error const& e)
        {
            return e.status();
        }
    }

    // Fills entry `entry` as an initiator would: header, then channel-major pattern samples.
    void fillEntry(SampleIngress const& ingress, std::size_t entry, std::uint64_t headIndex, std::uint64_t count, std::uint32_t channels,
                   std::uint32_t seed)
    {
        auto const span = ingress.bounceBuffer().spans()[entry];
        SampleEntryHeader const header{headIndex, count};
        std::memcpy(span.data(), &header, sizeof(header));
        auto* payload = span.data() + sizeof(header);
        for (std::uint32_t channel = 0; channel < channels; ++channel)
        {
            for (std::uint64_t i = 0; i < count && sizeof(header) + (channel * count + i + 1) * 4 <= span.size(); ++i)
            {
                auto const word = sampleWord(seed, channel, headIndex - count + 1 + i);
                std::memcpy(payload + (channel * count + i) * 4, &word, 4);
            }
        }
    }

    std::uint64_t headOf(mxlFlowReader reader)
    {
        mxlFlowRuntimeInfo runtime{};
        REQUIRE(mxlFlowReaderGetRuntimeInfo(reader, &runtime) == MXL_STATUS_OK);
        return runtime.headIndex;
    }
}

TEST_CASE("the target checks entry index and header before it copies an entry")
{
    FlowDomain domain{"audio-ingress"};
    Flow flow{domain, flowDefinition("audio_48k_stereo.json")};
    SampleIngress ingress{flow.writer};
    auto const layout = ingress.bounceBuffer().layout();
    REQUIRE(layout.entryCount == 41);
    REQUIRE(layout.entryBytes == 16 + 2 * 4 * 480);

    fillEntry(ingress, 0, 48'000, 480, 2, 7);
    auto const arrival = ingress.arrive(0);
    CHECK(arrival.headIndex == 48'000);
    CHECK(arrival.count == 480);
    CHECK(patternMismatches(flow.reader, 48'000, 480, 7) == std::optional<std::size_t>{0});
    CHECK(headOf(flow.reader) == 48'000);

    SUBCASE("an entry index beyond the bounce buffer")
    {
        CHECK(statusOf([&] { ingress.arrive(static_cast<std::uint32_t>(layout.entryCount)); }) == MXL_ERR_INVALID_ARG);
    }
    SUBCASE("more samples than an entry holds")
    {
        fillEntry(ingress, 1, 48'481, 481, 2, 7);
        CHECK(statusOf([&] { ingress.arrive(1); }) == MXL_ERR_INVALID_ARG);
    }
    SUBCASE("an entry holding the in-flight mark (count 0): a later transfer is rewriting it, the announced batch is lost")
    {
        fillEntry(ingress, 1, 48'960, 0, 2, 7);
        CHECK(statusOf([&] { ingress.arrive(1); }) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);
        CHECK(headOf(flow.reader) == 48'000);
    }
    SUBCASE("an entry overwritten by a later batch before it was read")
    {
        fillEntry(ingress, 1, 48'960, 480, 2, 7);
        CHECK(ingress.arrive(1).headIndex == 48'960);
        // The completion of entry 0 read again, or a batch older than one committed: nothing is copied.
        fillEntry(ingress, 0, 48'480, 480, 2, 9);
        CHECK(statusOf([&] { ingress.arrive(0); }) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);
        CHECK(patternMismatches(flow.reader, 48'480, 480, 9) == std::optional<std::size_t>{2 * 480});
        CHECK(patternMismatches(flow.reader, 48'960, 480, 7) == std::optional<std::size_t>{0});
    }
    // Whatever was rejected, the flow still ends where it did.
    CHECK(headOf(flow.reader) <= 48'960);
}
