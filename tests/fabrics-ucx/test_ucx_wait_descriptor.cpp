// The wait descriptor of a UCX target (backend ABI 1.5): over tcp the worker's event descriptor, quiet once armed and
// readable when an immediate lands, with nothing read meanwhile; shm gives none.
#include "Skip.hpp"
#include "UcxPair.hpp"

#include <doctest/doctest.h>

#include <poll.h>

#include <cstring>
#include <numeric>

using namespace mxl::test::ucx;

namespace
{
    bool armed(Pair& pair)
    {
        int result = 0;
        requireOk(pair.table, pair.table.target_arm(pair.target(), &result), "target_arm");
        return result == 1;
    }

    int readable(int descriptor, int timeoutMs)
    {
        pollfd entry{descriptor, POLLIN, 0};
        return ::poll(&entry, 1, timeoutMs);
    }
}

TEST_CASE("ucx tcp: the target's wait descriptor is quiet once armed and wakes when an immediate lands, with nothing read")
{
    auto const* table = backend();
    if (table == nullptr)
    {
        MXL_SKIP(whyMissing().c_str());
    }
    std::vector<std::uint8_t> source(4096);
    std::iota(source.begin(), source.end(), std::uint8_t{3});
    Pair pair{*table, MXL_FABRICS_PROVIDER_TCP, {4096}, source};
    pair.probe();
    int descriptor = -1;
    requireOk(*table, table->target_wait_descriptor(pair.target(), &descriptor), "target_wait_descriptor");
    REQUIRE(descriptor >= 0);

    for (std::uint32_t round = 0; round < 3; ++round)
    {
        CAPTURE(round);
        REQUIRE(pair.pumpUntil([&] { return armed(pair); }));
        CHECK(readable(descriptor, 0) == 0);

        pair.arrivals.clear();
        REQUIRE(pair.write(10 + round, 0, 0, 0, source.size(), 2, 70 + round));
        // Only the initiator runs until the descriptor wakes.
        int ready = 0;
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
        while (ready == 0 && std::chrono::steady_clock::now() < deadline)
        {
            ready = readable(descriptor, 10);
            mxlFabricsBackendCompletion completion{};
            std::uint32_t count = 0;
            requireOk(*table, table->initiator_poll_completion(pair.initiator, &completion, &count), "initiator_poll_completion");
        }
        REQUIRE(ready == 1);
        REQUIRE(pair.pumpUntil([&] { return !pair.arrivals.empty(); }));
        CHECK(pair.arrivals == std::vector<std::uint32_t>{70 + round});
        CHECK(std::memcmp(pair.regions[0].data(), source.data(), source.size()) == 0);
    }
}

TEST_CASE("ucx shm: a target has no wait descriptor (a library thread reads its events)")
{
    auto const* table = backend();
    if (table == nullptr)
    {
        MXL_SKIP(whyMissing().c_str());
    }
    Pair pair{*table, MXL_FABRICS_PROVIDER_SHM, {4096}, std::vector<std::uint8_t>(4096)};
    int descriptor = 0;
    requireOk(*table, table->target_wait_descriptor(pair.target(), &descriptor), "target_wait_descriptor");
    CHECK(descriptor == -1);
}
