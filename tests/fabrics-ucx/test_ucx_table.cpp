// The UCX backend's table in one process: a target and an initiator on two domains, over tcp (127.0.0.1) and shm.
#include "Checksum.hpp"
#include "ScopedVariable.hpp"
#include "Skip.hpp"
#include "UcxPair.hpp"

#include "client/LogCapture.hpp"
#include "fabrics/ticket/TicketAddressFormat.hpp"

#include <doctest/doctest.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <string>

using namespace mxl::test::ucx;

namespace
{
    std::vector<std::uint8_t> randomBytes(std::size_t size, std::uint32_t seed)
    {
        std::mt19937 generator{seed};
        std::vector<std::uint8_t> bytes(size);
        std::generate(bytes.begin(), bytes.end(), [&] { return static_cast<std::uint8_t>(generator()); });
        return bytes;
    }

    // `count` writes each completed once, delivered or INTERRUPTED with a reason: writes to a target that went away.
    void checkEndedOnce(std::vector<Completion> const& completions, std::uint64_t count)
    {
        std::map<std::uint64_t, int> seen;
        for (auto const& completion : completions)
        {
            INFO("context " << completion.context << ": " << completion.reason);
            ++seen[completion.context];
            if (completion.status != MXL_STATUS_OK)
            {
                CHECK(completion.status == MXL_ERR_INTERRUPTED);
                CHECK(!completion.reason.empty());
            }
        }
        CHECK(seen.size() == count);
        CHECK(std::all_of(seen.begin(), seen.end(), [](auto const& entry) { return entry.second == 1; }));
    }

    // Every context once, each completion OK.
    void checkCompletedOnce(std::vector<Completion> const& completions, std::uint64_t firstContext, std::uint64_t count)
    {
        std::map<std::uint64_t, int> seen;
        for (auto const& completion : completions)
        {
            INFO("context " << completion.context << ": " << completion.reason);
            CHECK(completion.status == MXL_STATUS_OK);
            ++seen[completion.context];
        }
        CHECK(seen.size() == count);
        for (auto context = firstContext; context < firstContext + count; ++context)
        {
            CHECK(seen[context] == 1);
        }
    }

    void gatheredWritesArrive(mxlFabricsProvider provider)
    {
        MXL_SKIP_IF(unavailable());
        auto const* table = backend();
        constexpr std::uint32_t writes = 24;
        auto const [source, sourceOffsets] = plannedSource(writes);
        Pair pair{*table, provider, std::vector<std::size_t>(planRegionCount, planRegionBytes), source};
        pair.probe();
        for (std::uint32_t index = 0; index < writes; ++index)
        {
            auto const planned = plannedWrite(index);
            REQUIRE(pair.pumpUntil(
                [&]
                { return pair.write(index + 1, planned.region, planned.offset, sourceOffsets[index], planned.length, 3, 1000 + index); }));
        }
        REQUIRE(pair.pumpUntil([&] { return pair.completions.size() == writes && pair.arrivals.size() == writes; }));

        std::vector<std::uint32_t> expected(writes);
        std::iota(expected.begin(), expected.end(), 1000u);
        CHECK(pair.arrivals == expected);
        checkCompletedOnce(pair.completions, 1, writes);
        for (std::uint32_t index = 0; index < writes; ++index)
        {
            auto const planned = plannedWrite(index);
            auto const* landed = pair.regions[planned.region].data() + planned.offset;
            INFO("write " << index << " to region " << planned.region << " at " << planned.offset);
            CHECK(mxl::test::fnv1a(landed, planned.length) == mxl::test::fnv1a(source.data() + sourceOffsets[index], planned.length));
        }
        // Nothing outside the planned ranges was touched (the probe wrote region 0's first byte, which write 0 covers).
        std::uint64_t written = 0;
        for (std::uint32_t index = 0; index < writes; ++index)
        {
            written += plannedWrite(index).length;
        }
        std::uint64_t nonZero = 0;
        for (auto const& region : pair.regions)
        {
            nonZero += static_cast<std::uint64_t>(std::count_if(region.begin(), region.end(), [](std::uint8_t b) { return b != 0; }));
        }
        CHECK(nonZero <= written);
    }

    void largeWritesArrive(mxlFabricsProvider provider)
    {
        MXL_SKIP_IF(unavailable());
        auto const* table = backend();
        constexpr std::size_t bytes = 3 * 1024 * 1024 + 123;
        auto const source = randomBytes(2 * bytes, 7);
        Pair pair{*table, provider, {bytes + 4096, bytes + 4096}, source};
        pair.probe();
        // Without an immediate: its completion alone says the bytes are in the target's memory.
        REQUIRE(pair.pumpUntil([&] { return pair.write(1, 1, 4096, bytes, bytes, 1, std::nullopt); }));
        REQUIRE(pair.pumpUntil([&] { return !pair.completions.empty(); }));
        CHECK(pair.completions[0].context == 1);
        CHECK(pair.completions[0].status == MXL_STATUS_OK);
        CHECK(std::memcmp(pair.regions[1].data() + 4096, source.data() + bytes, bytes) == 0);
        // With one: the immediate arrives once the bytes are there.
        REQUIRE(pair.pumpUntil([&] { return pair.write(2, 0, 0, 0, bytes, 2, 77); }));
        REQUIRE(pair.pumpUntil([&] { return pair.completions.size() == 2 && pair.arrivals.size() == 1; }));
        CHECK(pair.arrivals[0] == 77);
        CHECK(pair.completions[1].context == 2);
        CHECK(mxl::test::fnv1a(pair.regions[0].data(), bytes) == mxl::test::fnv1a(source.data(), bytes));
    }

    void fullQueueRecovers(mxlFabricsProvider provider)
    {
        MXL_SKIP_IF(unavailable());
        auto const* table = backend();
        auto const source = randomBytes(64 * 1024, 3);
        Pair pair{*table, provider, {64 * 1024}, source, 4};
        pair.probe();
        std::uint64_t posted = 0;
        while (pair.write(posted + 1, 0, 0, 0, 4096, 1, static_cast<std::uint32_t>(posted)))
        {
            ++posted;
            REQUIRE(posted <= 4);
        }
        CHECK(posted == 4);
        REQUIRE(pair.pumpUntil([&] { return !pair.completions.empty(); }));
        CHECK(pair.write(posted + 1, 0, 0, 0, 4096, 1, static_cast<std::uint32_t>(posted)));
        ++posted;
        REQUIRE(pair.pumpUntil([&] { return pair.completions.size() == posted && pair.arrivals.size() == posted; }));
        checkCompletedOnce(pair.completions, 1, posted);
        CHECK(pair.arrivals == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
    }

    void goneTargetIsReported(mxlFabricsProvider provider)
    {
        MXL_SKIP_IF(unavailable());
        auto const* table = backend();
        auto const source = randomBytes(64 * 1024, 5);
        Pair pair{*table, provider, {64 * 1024}, source};
        pair.probe();
        CHECK(pair.ended() == nullptr);
        pair.closeTarget();

        // Writes go on until the backend notices (tcp: the connection breaks; shm: the target's presence file is gone).
        auto const taken = pair.postUntilEnded([&] { pair.pump(); }, 1, 512, 1, 5);
        REQUIRE(taken.has_value());
        auto const accepted = *taken;
        std::string const reason = pair.ended();
        CHECK(reason.find("the target is gone") == 0);

        // Every accepted write still completes exactly once; those that failed say why.
        REQUIRE(pair.pumpUntil([&] { return pair.completions.size() == accepted; }));
        checkEndedOnce(pair.completions, accepted);

        // The connection takes no more writes, and says why.
        int posted = 0;
        CHECK(pair.post(accepted + 1, 0, 0, 0, 512, 1, 6, posted) == MXL_ERR_INTERRUPTED);
        CHECK(posted == 0);
        CHECK(std::string{table->last_error()}.find("the connection has ended: " + reason) != std::string::npos);
    }

    // The target closes while its writes' rendezvous receives are under way; this thread is the initiator's too, so no
    // sender finishes them during the close. The close returns after its bounded wait for them, and every write still
    // completes exactly once at the initiator: delivered, or INTERRUPTED with a reason.
    void closedWhileReceiving(mxlFabricsProvider provider)
    {
        MXL_SKIP_IF(unavailable());
        auto const* table = backend();
        constexpr std::size_t writeBytes = 1024 * 1024;
        constexpr std::uint64_t writes = 4;
        auto const source = randomBytes(writes * writeBytes, 11);
        Pair pair{*table, provider, {writes * writeBytes}, source};
        pair.probe();
        for (std::uint64_t index = 0; index < writes; ++index)
        {
            REQUIRE(pair.write(index + 1, 0, index * writeBytes, index * writeBytes, writeBytes, 1, static_cast<std::uint32_t>(index)));
        }
        // One pass: the target takes the writes that have come so far and starts receiving their data.
        pair.pump();
        auto const closing = std::chrono::steady_clock::now();
        pair.closeTarget();
        // The close waits up to 2 s for its receives and 1 s more to give them up (a shm target lingers 250 ms at most):
        // generous for a loaded host.
        CHECK(std::chrono::steady_clock::now() - closing < std::chrono::seconds{10});

        REQUIRE(pair.pumpUntil(
            [&]
            {
                static_cast<void>(pair.ended());
                return pair.completions.size() >= writes;
            }));
        checkEndedOnce(pair.completions, writes);
    }
}

// A scenario of one provider as two cases, one over tcp and one over shm, so that ctest shows each provider's result.
#define MXL_UCX_TCP_AND_SHM_CASES(what, scenario)                                                                                          \
    TEST_CASE("ucx tcp: " what)                                                                                                            \
    {                                                                                                                                      \
        scenario(MXL_FABRICS_PROVIDER_TCP);                                                                                                \
    }                                                                                                                                      \
    TEST_CASE("ucx shm: " what)                                                                                                            \
    {                                                                                                                                      \
        scenario(MXL_FABRICS_PROVIDER_SHM);                                                                                                \
    }

MXL_UCX_TCP_AND_SHM_CASES("gathered writes with immediates arrive in order, byte-exact, one completion each", gatheredWritesArrive)

// The puts and a flush per write: the path of device memory and of UCX versions other than 1.13, on this one.
TEST_CASE("ucx tcp and shm with the puts (test knob MXL_FABRICS_UCX_PUTS=1): gathered and large writes arrive in order, byte-exact")
{
    mxl::test::ScopedVariable const puts{"MXL_FABRICS_UCX_PUTS", "1"};
    for (auto const provider : {MXL_FABRICS_PROVIDER_TCP, MXL_FABRICS_PROVIDER_SHM})
    {
        CAPTURE(provider);
        gatheredWritesArrive(provider);
        largeWritesArrive(provider);
    }
}

MXL_UCX_TCP_AND_SHM_CASES("writes larger than one MiB complete once delivered", largeWritesArrive)
MXL_UCX_TCP_AND_SHM_CASES("a full transmit queue refuses a write and takes it after a completion", fullQueueRecovers)
MXL_UCX_TCP_AND_SHM_CASES("a target that is gone fails the connection with a reason, every write completes once", goneTargetIsReported)
MXL_UCX_TCP_AND_SHM_CASES("a target closed while receiving returns from the close, and every write completes once", closedWhileReceiving)

// A target closed, with its domain, while its initiator is still connecting: at each number of target progress passes
// before the close, its worker may hold the wire-up reply to the initiator's request, queued until the connection back
// is up (UCX 1.13 aborted the process destroying such a worker). The process lives on, and every write completes once.
TEST_CASE("ucx tcp: a target closed while its initiator connects closes its domain, and the write completes once")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    // A flush that did not finish would keep each worker, and say so.
    mxl::client::LogCapture log;
    for (int passes = 0; passes < 6; ++passes)
    {
        for (int round = 0; round < 10; ++round)
        {
            CAPTURE(passes);
            CAPTURE(round);
            auto const source = randomBytes(4096, static_cast<std::uint32_t>(round));
            Pair pair{*table, MXL_FABRICS_PROVIDER_TCP, {source.size()}, source};
            REQUIRE(pair.write(1, 0, 0, 0, source.size(), 1, 3u));
            for (int pass = 0; pass < passes; ++pass)
            {
                pair.pump();
            }
            auto const arrived = pair.arrivals.size();
            pair.closeTarget();
            REQUIRE(pair.pumpUntil(
                [&]
                {
                    static_cast<void>(pair.ended());
                    return !pair.completions.empty();
                }));
            checkEndedOnce(pair.completions, 1);
            // A write the target announced before its close had all its bytes in place.
            if (arrived != 0)
            {
                CHECK(pair.arrivals == std::vector<std::uint32_t>{3});
                CHECK(pair.regions[0] == source);
            }
        }
    }
    auto const text = log.text();
    CHECK_MESSAGE(mxl::client::occurrences(text, "keeps its worker") == 0, text);
}

TEST_CASE("ucx tcp: a target waiting on a receive whose sender stopped sending sleeps rather than spins, and takes the write "
          "once it comes")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    constexpr std::size_t writeBytes = 1024 * 1024;
    auto const source = randomBytes(writeBytes, 13);
    Pair pair{*table, MXL_FABRICS_PROVIDER_TCP, {writeBytes}, source};
    if ((pair.initiatorDomainFlags & MXL_FABRICS_BACKEND_ORDERED_WRITES) == 0)
    {
        MXL_SKIP("writes are rendezvous receives under UCX 1.13 only (docs/fabrics-backends-ucx.md): this UCX puts");
    }
    pair.probe();
    REQUIRE(pair.write(1, 0, 0, 0, writeBytes, 1, 77u));
    // The target takes the write's announcement and asks for its data; this thread does not progress the initiator for
    // the second, so no byte of it comes.
    auto const threadCpu = []
    {
        timespec now{};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return std::chrono::seconds{now.tv_sec} + std::chrono::nanoseconds{now.tv_nsec};
    };
    auto const wallStart = std::chrono::steady_clock::now();
    auto const cpuStart = threadCpu();
    int arrived = 0;
    std::uint32_t immediate = 0;
    requireOk(*table, table->target_next_arrival(pair.target(), 1000, nullptr, nullptr, &arrived, &immediate), "target_next_arrival");
    auto const wall = std::chrono::steady_clock::now() - wallStart;
    auto const cpu = threadCpu() - cpuStart;
    CHECK(arrived == 0);
    CHECK(wall >= std::chrono::milliseconds{1000});
    // A millisecond of polling after its last work, then asleep on the worker's descriptor: a spinning target would use
    // all of the second the scheduler gave it.
    CHECK_MESSAGE(cpu * 5 < wall, "the target used ", std::chrono::duration_cast<std::chrono::milliseconds>(cpu).count(), " ms of CPU in ",
                  std::chrono::duration_cast<std::chrono::milliseconds>(wall).count(), " ms");

    REQUIRE(pair.pumpUntil([&] { return !pair.arrivals.empty() && !pair.completions.empty(); }));
    CHECK(pair.arrivals == std::vector<std::uint32_t>{77});
    CHECK(pair.completions.front().status == MXL_STATUS_OK);
    CHECK(pair.regions[0] == source);
}

TEST_CASE("ucx: bad input gives the documented status and text")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    auto const text = [&] { return std::string{table->last_error()}; };
    mxlFabricsBackendDomain domain = nullptr;
    mxlFabricsBackendDomainInfo info{};

    auto const verbs = interfaceOf(MXL_FABRICS_PROVIDER_VERBS, "127.0.0.1");
    CHECK(table->domain_open(&verbs, MXL_FABRICS_BACKEND_TARGET, &domain, &info) == MXL_ERR_NO_FABRIC);
    CHECK(text() == "the ucx backend carries provider tcp (1) or shm (4), not provider 2");

    auto const absent = interfaceOf(MXL_FABRICS_PROVIDER_TCP, "203.0.113.77");
    CHECK(table->domain_open(&absent, MXL_FABRICS_BACKEND_TARGET, &domain, &info) == MXL_ERR_NO_FABRIC);
    CHECK(text() == "ucx tcp: no interface of this host that is up has the address 203.0.113.77");

    auto const named = interfaceOf(MXL_FABRICS_PROVIDER_TCP, "localhost");
    CHECK(table->domain_open(&named, MXL_FABRICS_BACKEND_TARGET, &domain, &info) == MXL_ERR_INVALID_ARG);
    CHECK(text() == "ucx tcp: node \"localhost\" is not an IPv4 or IPv6 address");

    auto const source = randomBytes(4096, 1);
    Pair pair{*table, MXL_FABRICS_PROVIDER_TCP, {4096, 4096}, source};
    int posted = 1;
    CHECK(pair.post(1, 9, 0, 0, 16, 1, std::nullopt, posted) == MXL_ERR_INVALID_ARG);
    CHECK(text() == "ucx: target 42: a write to region 9; its ticket has 2 regions");
    CHECK(posted == 0);
    CHECK(pair.post(1, 1, 4000, 0, 200, 1, std::nullopt, posted) == MXL_ERR_INVALID_ARG);
    CHECK(text() == "ucx: target 42: a write of 200 bytes at offset 4000 of region 1, which holds 4096 bytes");
    CHECK(pair.post(1, 1, 0, 0, 200, 17, std::nullopt, posted) == MXL_ERR_INVALID_ARG);
    CHECK(text() == "ucx: target 42: a write of 17 segments; expected 1 to 16");

    std::uint8_t const address[] = {1, 2, 3};
    mxlFabricsBackendPeer peer = nullptr;
    CHECK(table->peer_open(pair.initiator, 9, {address, sizeof(address)}, 2, nullptr, 0, &peer) == MXL_ERR_INVALID_ARG);
    CHECK(text() == "ucx initiator: target 9 has address format 2; the ucx backend reaches only UCX worker addresses (1297612801)");
    CHECK(peer == nullptr);

    int completion = 1;
    CHECK(table->initiator_wait(pair.initiator, 10, 0, &completion) == MXL_ERR_UNSUPPORTED_OPERATION);
    CHECK(completion == 0);

    mxlFabricsBackend const* again = nullptr;
    mxlFabricsBackendHost const host{sizeof(mxlFabricsBackendHost), nullptr};
    CHECK(entry()(2u << 16, &host, &again) == MXL_ERR_UNSUPPORTED_OPERATION);
    CHECK(text() == "the ucx backend implements backend ABI 1.x, the host needs 2.x");
}

TEST_CASE("ucx: interfaces are one tcp entry per IP address of an interface and one shm entry")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    struct Entry
    {
        mxlFabricsProvider provider;
        std::string node;
        std::string attr;
    };
    std::vector<Entry> entries;
    auto const collect = [](void* user, mxlFabricsInterfaceConfig const* entry) {
        static_cast<std::vector<Entry>*>(user)->push_back({entry->provider, entry->address.node, entry->attr});
    };
    REQUIRE(table->list_interfaces(nullptr, collect, &entries) == MXL_STATUS_OK);
    CHECK(std::count_if(entries.begin(), entries.end(), [](auto const& e) { return e.provider == MXL_FABRICS_PROVIDER_SHM; }) == 1);
    auto const loopback = std::find_if(entries.begin(), entries.end(), [](auto const& e) { return e.node == "127.0.0.1"; });
    REQUIRE(loopback != entries.end());
    CHECK(loopback->provider == MXL_FABRICS_PROVIDER_TCP);
    CHECK(loopback->attr == R"({"device":"lo","transports":"tcp"})");
    auto const ipv6Loopback = std::find_if(entries.begin(), entries.end(), [](auto const& e) { return e.node == "::1"; });
    if (ipv6Loopback != entries.end())
    {
        CHECK(ipv6Loopback->attr == R"({"device":"lo","transports":"tcp"})");
    }

    entries.clear();
    auto const query = interfaceOf(MXL_FABRICS_PROVIDER_SHM, nullptr);
    REQUIRE(table->list_interfaces(&query, collect, &entries) == MXL_STATUS_OK);
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].provider == MXL_FABRICS_PROVIDER_SHM);
}
