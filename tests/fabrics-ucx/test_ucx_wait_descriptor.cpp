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

    int descriptorOf(Pair& pair)
    {
        int descriptor = -1;
        requireOk(pair.table, pair.table.target_wait_descriptor(pair.target(), &descriptor), "target_wait_descriptor");
        return descriptor;
    }

    // A tcp pair with one region of `bytes` and a source of as many bytes counting up from `first`.
    Pair countingPair(mxlFabricsBackend const& table, std::size_t bytes, std::uint8_t first)
    {
        std::vector<std::uint8_t> source(bytes);
        std::iota(source.begin(), source.end(), first);
        return Pair{table, MXL_FABRICS_PROVIDER_TCP, {bytes}, std::move(source)};
    }

    int readable(int descriptor, int timeoutMs)
    {
        pollfd entry{descriptor, POLLIN, 0};
        return ::poll(&entry, 1, timeoutMs);
    }
}

TEST_CASE("ucx tcp: the target's wait descriptor is quiet once armed and wakes when a write with an immediate lands, with nothing read")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    auto pair = countingPair(*table, 4096, 3);
    pair.probe();
    auto const descriptor = descriptorOf(pair);
    REQUIRE(descriptor >= 0);

    for (std::uint32_t round = 0; round < 3; ++round)
    {
        CAPTURE(round);
        REQUIRE(pair.pumpUntil([&] { return armed(pair); }));
        CHECK(readable(descriptor, 0) == 0);

        pair.arrivals.clear();
        REQUIRE(pair.write(10 + round, 0, 0, 0, pair.source.size(), 2, 70 + round));
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
        CHECK(std::memcmp(pair.regions[0].data(), pair.source.data(), pair.source.size()) == 0);
    }
}

TEST_CASE("ucx tcp: arming says work is waiting while an immediate the target has taken is not handed out")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    auto pair = countingPair(*table, 128, 9);
    if ((pair.initiatorDomainFlags & MXL_FABRICS_BACKEND_ORDERED_WRITES) == 0)
    {
        MXL_SKIP("the immediates go out as they are posted only where writes are ordered (UCX 1.13): this UCX flushes first");
    }
    pair.probe();
    REQUIRE(pair.pumpUntil([&] { return armed(pair); }));
    // Two commits go by rendezvous: arming progresses the target, which asks for their bytes; the initiator's progress
    // sends them and completes both. The target's next steps then take both immediates, and arming says work waits.
    REQUIRE(pair.write(1, 0, 0, 0, 64, 1, 81));
    REQUIRE(pair.write(2, 0, 64, 64, 64, 1, 82));
    std::size_t completed = 0;
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
    while (completed < 2 && std::chrono::steady_clock::now() < deadline)
    {
        static_cast<void>(armed(pair));
        mxlFabricsBackendCompletion completion{};
        std::uint32_t count = 0;
        requireOk(*table, table->initiator_poll_completion(pair.initiator, &completion, &count), "initiator_poll_completion");
        completed += count;
    }
    REQUIRE(completed == 2);
    auto waiting = false;
    while (!waiting && std::chrono::steady_clock::now() < deadline)
    {
        waiting = !armed(pair) || readable(descriptorOf(pair), 100) == 1;
    }
    REQUIRE(waiting);
    int arrived = 0;
    std::uint32_t immediate = 0;
    requireOk(*table, table->target_next_arrival(pair.target(), 0, nullptr, nullptr, &arrived, &immediate), "target_next_arrival");
    REQUIRE(arrived == 1);
    CHECK(immediate == 81);
    CHECK_FALSE(armed(pair));
    requireOk(*table, table->target_next_arrival(pair.target(), 0, nullptr, nullptr, &arrived, &immediate), "target_next_arrival");
    REQUIRE(arrived == 1);
    CHECK(immediate == 82);
    CHECK(std::memcmp(pair.regions[0].data(), pair.source.data(), pair.source.size()) == 0);
}

TEST_CASE("ucx shm: a target has no wait descriptor (a library thread reads its events)")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    Pair pair{*table, MXL_FABRICS_PROVIDER_SHM, {4096}, std::vector<std::uint8_t>(4096)};
    CHECK(descriptorOf(pair) == -1);
}
