// Ordered writes of the UCX backend: a tcp domain on a node and a shm domain report ORDERED_WRITES, and a commit posted
// right behind its payload, before the payload completed, is handed out only once every byte of the payload is in place.
#include "ScopedVariable.hpp"
#include "Skip.hpp"
#include "UcxPair.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

using namespace mxl::test::ucx;

namespace
{
    constexpr std::size_t payloadBytes = 3 * 1024 * 1024;
    // As large as the payload: the commit's own bytes take several progress steps to land as well.
    constexpr std::size_t commitBytes = payloadBytes;

    bool inPlace(Pair const& pair)
    {
        return std::equal(pair.regions[0].begin(), pair.regions[0].end(), pair.source.begin()) &&
               std::equal(pair.regions[1].begin(), pair.regions[1].end(), pair.source.begin() + payloadBytes);
    }

    // Progresses the initiator while the target is read, one call each, until the target hands out an immediate; both
    // regions (the payload's and the commit's own bytes) are compared with the source at that moment.
    bool payloadInPlaceAtArrival(Pair& pair, std::uint32_t expectedImmediate)
    {
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
        while (std::chrono::steady_clock::now() < deadline)
        {
            int arrived = 0;
            std::uint32_t immediate = 0;
            requireOk(pair.table, pair.table.target_next_arrival(pair.target(), 0, nullptr, nullptr, &arrived, &immediate),
                      "target_next_arrival");
            if (arrived != 0)
            {
                CHECK(immediate == expectedImmediate);
                return inPlace(pair);
            }
            mxlFabricsBackendCompletion completion{};
            std::uint32_t count = 0;
            requireOk(pair.table, pair.table.initiator_poll_completion(pair.initiator, &completion, &count), "initiator_poll_completion");
            if (count != 0)
            {
                CHECK(completion.status == MXL_STATUS_OK);
                pair.completions.push_back({completion.context, completion.status, ""});
            }
        }
        FAIL("no immediate arrived within 30 s");
        return false;
    }
}

namespace
{
    void commitArrivesAfterEveryByte(mxlFabricsProvider provider)
    {
        MXL_SKIP_IF(unavailable());
        auto const* table = backend();
        std::mt19937 generator{7};
        std::vector<std::uint8_t> source(payloadBytes + commitBytes);
        Pair pair{*table, provider, {payloadBytes, commitBytes}, source};
        if ((pair.initiatorDomainFlags & MXL_FABRICS_BACKEND_ORDERED_WRITES) == 0)
        {
            MXL_SKIP("ordered writes are claimed under UCX 1.13 only (docs/fabrics-backends-ucx.md): this UCX keeps a flush per write");
        }
        CHECK((pair.targetDomainFlags & MXL_FABRICS_BACKEND_ORDERED_WRITES) != 0);
        pair.probe();
        for (std::uint32_t round = 0; round < 8; ++round)
        {
            CAPTURE(round);
            std::generate(pair.source.begin(), pair.source.end(), [&] { return static_cast<std::uint8_t>(generator()); });
            for (auto& region : pair.regions)
            {
                std::fill(region.begin(), region.end(), std::uint8_t{0});
            }
            pair.completions.clear();
            REQUIRE(pair.write(2 * round + 1, 0, 0, 0, payloadBytes, 4, std::nullopt, MXL_FABRICS_BACKEND_WRITE_COMPLETE_WHEN_READ));
            REQUIRE(pair.write(2 * round + 2, 1, 0, payloadBytes, commitBytes, 1, 500 + round));
            // With the target not read, the commit cannot complete: it goes by rendezvous, which the target's reads answer.
            for (int poll = 0; poll < 2000; ++poll)
            {
                mxlFabricsBackendCompletion completion{};
                std::uint32_t count = 0;
                requireOk(pair.table, pair.table.initiator_poll_completion(pair.initiator, &completion, &count),
                          "initiator_poll_completion");
                if (count != 0)
                {
                    CHECK(completion.context != 2 * round + 2);
                    pair.completions.push_back({completion.context, completion.status, ""});
                }
            }
            CHECK(payloadInPlaceAtArrival(pair, 500 + round));
            REQUIRE(pair.pumpUntil([&] { return pair.completions.size() == 2; }));
            for (auto const& completion : pair.completions)
            {
                CHECK(completion.status == MXL_STATUS_OK);
            }
        }
    }
}

TEST_CASE("ucx tcp on a node: writes are ordered, and a commit posted behind its unfinished payload arrives after every byte")
{
    commitArrivesAfterEveryByte(MXL_FABRICS_PROVIDER_TCP);
}

TEST_CASE("ucx shm: writes are ordered, and a commit posted behind its unfinished payload arrives after every byte")
{
    commitArrivesAfterEveryByte(MXL_FABRICS_PROVIDER_SHM);
}

TEST_CASE("ucx with the puts (test knob MXL_FABRICS_UCX_PUTS=1): neither tcp nor shm claims ordered writes")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    mxl::test::ScopedVariable const puts{"MXL_FABRICS_UCX_PUTS", "1"};
    for (auto const provider : {MXL_FABRICS_PROVIDER_TCP, MXL_FABRICS_PROVIDER_SHM})
    {
        CAPTURE(provider);
        Pair pair{*table, provider, {4096}, std::vector<std::uint8_t>(4096)};
        CHECK((pair.initiatorDomainFlags & MXL_FABRICS_BACKEND_ORDERED_WRITES) == 0);
        CHECK((pair.targetDomainFlags & MXL_FABRICS_BACKEND_ORDERED_WRITES) == 0);
    }
}
