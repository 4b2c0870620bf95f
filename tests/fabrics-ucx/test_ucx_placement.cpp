// How a UCX target places the writes of ordered domains (lib/fabrics/backends/ucx/UcxPlacement.hpp): an immediate is
// handed out once its write and every earlier write of its connection are in place, connections kept apart; and a
// write that names memory not registered for remote writes, comes with a header of another size or not by rendezvous is
// ignored (a rendezvous refused with an error), sent by a raw UCP endpoint as anything holding the target's address
// could.
#include "Skip.hpp"
#include "UcxPair.hpp"
#include "fabrics/backends/ucx/UcxArrivals.hpp"

#include <doctest/doctest.h>

#include <ucp/api/ucp.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

using namespace mxl::test::ucx;
using mxl::fabrics::ucx::placementMessageId;
using mxl::fabrics::ucx::UcxArrivals;
using mxl::fabrics::ucx::UcxPlacementHeader;

namespace
{
    std::vector<std::uint32_t> drain(UcxArrivals& arrivals)
    {
        std::vector<std::uint32_t> taken;
        while (!arrivals.empty())
        {
            taken.push_back(arrivals.take());
        }
        return taken;
    }

    // A UCP context, worker and endpoint of their own on lo's tcp, reaching the pair's target.
    class RawSender
    {
    public:
        explicit RawSender(Pair& pair)
        {
            ucp_config_t* config = nullptr;
            REQUIRE(ucp_config_read(nullptr, nullptr, &config) == UCS_OK);
            CHECK(ucp_config_modify(config, "TLS", "tcp") == UCS_OK);
            CHECK(ucp_config_modify(config, "NET_DEVICES", "lo") == UCS_OK);
            ucp_params_t params{};
            params.field_mask = UCP_PARAM_FIELD_FEATURES;
            params.features = UCP_FEATURE_AM;
            auto const initialised = ucp_init(&params, config, &_context);
            ucp_config_release(config);
            REQUIRE(initialised == UCS_OK);
            ucp_worker_params_t workerParams{};
            REQUIRE(ucp_worker_create(_context, &workerParams, &_worker) == UCS_OK);
            mxlFabricsBackendBlob address{};
            std::uint32_t format = 0;
            requireOk(pair.table, pair.table.target_address(pair.target(), &address, &format), "target_address");
            ucp_ep_params_t endpoint{};
            endpoint.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
            endpoint.address = reinterpret_cast<ucp_address_t const*>(address.bytes);
            REQUIRE(ucp_ep_create(_worker, &endpoint, &_endpoint) == UCS_OK);
        }

        ~RawSender()
        {
            ucp_request_param_t params{};
            params.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            params.flags = UCP_EP_CLOSE_FLAG_FORCE;
            wait(ucp_ep_close_nbx(_endpoint, &params));
            ucp_worker_destroy(_worker);
            ucp_cleanup(_context);
        }

        RawSender(RawSender const&) = delete;
        RawSender& operator=(RawSender const&) = delete;

        // Posts one active message of id 2 (eager or rendezvous) and reads `pair`'s target while it is under way: how
        // the send completed.
        ucs_status_t send(Pair& pair, void const* header, std::size_t headerBytes, void const* data, std::size_t bytes, bool rendezvous)
        {
            ucp_request_param_t params{};
            params.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            params.flags = rendezvous ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER;
            return wait(ucp_am_send_nbx(_endpoint, placementMessageId, header, headerBytes, data, bytes, &params), &pair);
        }

        void progress()
        {
            ucp_worker_progress(_worker);
        }

    private:
        ucp_context_h _context = nullptr;
        ucp_worker_h _worker = nullptr;
        ucp_ep_h _endpoint = nullptr;

        ucs_status_t wait(void* request, Pair* pair = nullptr)
        {
            if (!UCS_PTR_IS_PTR(request))
            {
                return UCS_PTR_STATUS(request);
            }
            auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
            while (ucp_request_check_status(request) == UCS_INPROGRESS && std::chrono::steady_clock::now() < deadline)
            {
                ucp_worker_progress(_worker);
                if (pair != nullptr)
                {
                    // One progress pass of the target; an immediate it hands out meanwhile is kept.
                    int arrived = 0;
                    std::uint32_t immediate = 0;
                    requireOk(pair->table, pair->table.target_next_arrival(pair->target(), 0, nullptr, nullptr, &arrived, &immediate),
                              "target_next_arrival");
                    if (arrived != 0)
                    {
                        pair->arrivals.push_back(immediate);
                    }
                }
            }
            auto const status = ucp_request_check_status(request);
            CHECK(status != UCS_INPROGRESS);
            ucp_request_free(request);
            return status;
        }
    };
}

TEST_CASE("ucx arrivals: an immediate is handed out once its write and every earlier write of its connection are placed")
{
    // Marks of forgotten connections that outlive the case, however slowly it runs.
    UcxArrivals arrivals{std::chrono::hours{1}};
    auto& payloadA = arrivals.add({0x1000, 1, 0, 0});
    auto& commitA = arrivals.add({0x2000, 1, 11, 1});
    auto& commitB = arrivals.add({0x3000, 2, 21, 1});
    auto& secondCommitA = arrivals.add({0x4000, 1, 12, 1});

    // A's commit is placed before A's payload: it waits; B's does not wait for A.
    arrivals.placed(commitA, false);
    CHECK(drain(arrivals).empty());
    arrivals.placed(commitB, false);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{21});
    arrivals.placed(secondCommitA, false);
    CHECK(drain(arrivals).empty());
    arrivals.placed(payloadA, false);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{11, 12});

    // A failed commit releases what waits behind it but announces nothing itself.
    auto& failed = arrivals.add({0x1000, 1, 13, 1});
    auto& after = arrivals.add({0x2000, 1, 14, 1});
    arrivals.placed(after, false);
    CHECK(drain(arrivals).empty());
    arrivals.placed(failed, true);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{14});

    // A failed payload write costs its grain's commit, not the next grain's.
    auto& lostPayload = arrivals.add({0x1000, 1, 0, 0});
    auto& itsCommit = arrivals.add({0x2000, 1, 15, 1});
    auto& nextCommit = arrivals.add({0x3000, 1, 16, 1});
    arrivals.placed(itsCommit, false);
    arrivals.placed(nextCommit, false);
    arrivals.placed(lostPayload, true);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{16});

    // So does an ignored one, whether it comes behind writes still being placed or alone; an ignored commit costs
    // only itself.
    auto& pending = arrivals.add({0x1000, 1, 0, 0});
    arrivals.ignored({0x2000, 1, 0, 0});
    auto& commitAfterIgnored = arrivals.add({0x3000, 1, 17, 1});
    arrivals.placed(commitAfterIgnored, false);
    arrivals.placed(pending, false);
    CHECK(drain(arrivals).empty());
    arrivals.ignored({0x1000, 2, 0, 0});
    arrivals.placed(arrivals.add({0x2000, 2, 22, 1}), false);
    arrivals.ignored({0x1000, 2, 23, 1});
    arrivals.placed(arrivals.add({0x2000, 2, 24, 1}), false);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{24});

    // A flood of unknown connections' refused writes: the table stays bounded, and a connection forgotten to keep it
    // so still loses the grain its refused write belonged to; the next grain of each is announced.
    for (std::uint64_t tag = 100; tag < 100 + 3 * UcxArrivals::maxConnections; ++tag)
    {
        arrivals.ignored({0x1000, tag, 0, 0});
        REQUIRE(arrivals.connections() <= UcxArrivals::maxConnections);
    }
    arrivals.ignored({0x1000, 99, 0, 0});
    for (std::uint64_t tag = 99; tag < 100 + 3 * UcxArrivals::maxConnections; tag += 997)
    {
        CAPTURE(tag);
        arrivals.placed(arrivals.add({0x2000, tag, 31, 1}), false);
        CHECK(drain(arrivals).empty());
        arrivals.placed(arrivals.add({0x2000, tag, 32, 1}), false);
        CHECK(drain(arrivals) == std::vector<std::uint32_t>{32});
    }

    // The put path's immediates are ready at once, in the same queue.
    arrivals.announce(33);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{33});
}

TEST_CASE("ucx arrivals: connections whose payload write failed stay bounded, and each still loses that grain, not the next")
{
    UcxArrivals arrivals{std::chrono::hours{1}};
    constexpr std::uint64_t flood = 5 * UcxArrivals::maxConnections;
    for (std::uint64_t tag = 1; tag <= flood; ++tag)
    {
        arrivals.placed(arrivals.add({0x1000, tag, 0, 0}), true);
        REQUIRE(arrivals.connections() <= UcxArrivals::maxConnections);
    }
    // A connection with a write under way is never forgotten: its place in the order is what it announces by.
    auto& underWay = arrivals.add({0x1000, flood + 1, 0, 0});
    for (std::uint64_t tag = flood + 2; tag <= flood + 2 + UcxArrivals::maxConnections; ++tag)
    {
        arrivals.placed(arrivals.add({0x1000, tag, 0, 0}), true);
    }
    auto& itsCommit = arrivals.add({0x2000, flood + 1, 41, 1});
    arrivals.placed(itsCommit, false);
    CHECK(drain(arrivals).empty());
    arrivals.placed(underWay, false);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{41});

    // Every flooded connection, remembered or forgotten, announces its next grain but not the one that lost its payload.
    std::size_t announced = 0;
    for (std::uint64_t tag = 1; tag <= flood; tag += 13)
    {
        CAPTURE(tag);
        arrivals.placed(arrivals.add({0x2000, tag, 51, 1}), false);
        CHECK(drain(arrivals).empty());
        arrivals.placed(arrivals.add({0x3000, tag, 52, 1}), false);
        auto const next = drain(arrivals);
        CHECK(next == std::vector<std::uint32_t>{52});
        announced += next.size();
    }
    CHECK(announced == (flood + 12) / 13);
}

TEST_CASE("ucx arrivals: a payload write that could not be entered costs its grain, and those of the writes queued before it")
{
    UcxArrivals arrivals{std::chrono::hours{1}};
    // Behind one grain still being placed: that grain and the lost write's are both dropped, the one after is not.
    auto& queuedPayload = arrivals.add({0x1000, 1, 0, 0});
    auto& queuedCommit = arrivals.add({0x2000, 1, 71, 1});
    arrivals.lostUnrecorded({0x3000, 1, 0, 0});
    auto& itsCommit = arrivals.add({0x4000, 1, 72, 1});
    auto& nextCommit = arrivals.add({0x5000, 1, 73, 1});
    arrivals.placed(queuedCommit, false);
    arrivals.placed(itsCommit, false);
    arrivals.placed(nextCommit, false);
    arrivals.placed(queuedPayload, false);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{73});

    // A connection the table does not hold: its next grain, and only that one.
    arrivals.lostUnrecorded({0x1000, 2, 0, 0});
    arrivals.placed(arrivals.add({0x2000, 2, 81, 1}), false);
    CHECK(drain(arrivals).empty());
    arrivals.placed(arrivals.add({0x2000, 2, 82, 1}), false);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{82});

    // An idle connection's; a lost commit costs nothing more than itself.
    arrivals.lostUnrecorded({0x1000, 1, 0, 0});
    arrivals.placed(arrivals.add({0x2000, 1, 74, 1}), false);
    arrivals.lostUnrecorded({0x2000, 1, 75, 1});
    arrivals.placed(arrivals.add({0x2000, 1, 76, 1}), false);
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{76});
}

TEST_CASE("ucx arrivals: a commit is due from the placing of a grain's payload write until the placing of its commit")
{
    UcxArrivals arrivals{std::chrono::hours{1}};
    CHECK_FALSE(arrivals.commitDue());
    auto& payload = arrivals.add({0x1000, 1, 0, 0});
    auto& commit = arrivals.add({0x2000, 1, 91, 1});
    // Entered is not placed: a payload still being received is the receive's to wait for.
    CHECK_FALSE(arrivals.commitDue());
    arrivals.placed(payload, false);
    CHECK(arrivals.commitDue());
    arrivals.placed(commit, false);
    CHECK_FALSE(arrivals.commitDue());
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{91});

    // A commit placed before its payload: nothing is due once both are, in whichever order.
    auto& latePayload = arrivals.add({0x1000, 1, 0, 0});
    auto& earlyCommit = arrivals.add({0x2000, 1, 92, 1});
    arrivals.placed(earlyCommit, false);
    CHECK_FALSE(arrivals.commitDue());
    arrivals.placed(latePayload, false);
    CHECK_FALSE(arrivals.commitDue());
    CHECK(drain(arrivals) == std::vector<std::uint32_t>{92});

    // A failed payload write still has its commit to come (which is then dropped).
    arrivals.placed(arrivals.add({0x1000, 2, 0, 0}), true);
    CHECK(arrivals.commitDue());
    arrivals.placed(arrivals.add({0x2000, 2, 93, 1}), false);
    CHECK_FALSE(arrivals.commitDue());
    CHECK(drain(arrivals).empty());
}

TEST_CASE("ucx arrivals: the marks a flood leaves cost new connections their first grain only until they have aged")
{
    constexpr std::chrono::milliseconds markAge{500};
    UcxArrivals arrivals{markAge};
    for (std::uint64_t tag = 1; tag <= 5 * UcxArrivals::maxConnections; ++tag)
    {
        arrivals.placed(arrivals.add({0x1000, tag, 0, 0}), true);
    }
    // Connections never seen: those whose tag shares a mark lose their first grain.
    auto const firstGrainsLost = [&](std::uint64_t firstTag)
    {
        std::size_t lost = 0;
        for (std::uint64_t tag = firstTag; tag < firstTag + 1000; ++tag)
        {
            arrivals.placed(arrivals.add({0x2000, tag, 61, 1}), false);
            lost += drain(arrivals).empty() ? 1 : 0;
        }
        return lost;
    };
    CHECK(firstGrainsLost(1'000'000) > 0);
    // Every mark has lived its age once the last was set that long ago.
    std::this_thread::sleep_for(2 * markAge);
    CHECK(firstGrainsLost(2'000'000) == 0);
}

TEST_CASE("ucx tcp target: writes to memory not registered for writes, and headers of another size, are ignored, and a good write after "
          "them lands")
{
    MXL_SKIP_IF(unavailable());
    auto const* table = backend();
    std::vector<std::uint8_t> source(64 * 1024);
    std::iota(source.begin(), source.end(), std::uint8_t{5});
    Pair pair{*table, MXL_FABRICS_PROVIDER_TCP, {source.size()}, source};
    RawSender sender{pair};
    // Memory of this process that no domain registered: a target must not write it whatever a sender names.
    std::vector<std::uint8_t> unregistered(source.size(), 0);
    auto const address = [](std::vector<std::uint8_t> const& bytes) { return reinterpret_cast<std::uintptr_t>(bytes.data()); };

    // Refused rendezvous complete the sender's send with an error.
    UcxPlacementHeader outside{address(unregistered), 77, 91, 1};
    CHECK(sender.send(pair, &outside, sizeof(outside), source.data(), 256, false) == UCS_OK);
    CHECK(sender.send(pair, &outside, sizeof(outside), source.data(), source.size(), true) != UCS_OK);
    // Straddling the end of the registered region.
    UcxPlacementHeader straddling{address(pair.regions[0]) + source.size() - 16, 77, 92, 1};
    CHECK(sender.send(pair, &straddling, sizeof(straddling), source.data(), 32, true) != UCS_OK);
    std::uint64_t const shortHeader[2] = {address(pair.regions[0]), 77};
    CHECK(sender.send(pair, shortHeader, sizeof(shortHeader), source.data(), 256, true) != UCS_OK);
    // Inside the region, but not by rendezvous: not one of ours.
    UcxPlacementHeader eager{address(pair.regions[0]), 77, 94, 1};
    CHECK(sender.send(pair, &eager, sizeof(eager), source.data(), 256, false) == UCS_OK);
    CHECK(std::all_of(pair.regions[0].begin(), pair.regions[0].end(), [](std::uint8_t byte) { return byte == 0; }));

    UcxPlacementHeader good{address(pair.regions[0]), 77, 93, 1};
    CHECK(sender.send(pair, &good, sizeof(good), source.data(), source.size(), true) == UCS_OK);
    REQUIRE(pair.pumpUntil(
        [&]
        {
            sender.progress();
            return !pair.arrivals.empty();
        }));
    CHECK(pair.arrivals == std::vector<std::uint32_t>{93});
    CHECK(std::all_of(unregistered.begin(), unregistered.end(), [](std::uint8_t byte) { return byte == 0; }));
    CHECK(std::memcmp(pair.regions[0].data(), source.data(), source.size()) == 0);
}
