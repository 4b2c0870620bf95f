// Connection changes as events: tcp reports an initiator's connection and its end, paired by connection id, also while
// another initiator keeps the target busy; shm has no connections and reports none.
#include "EventsLink.hpp"
#include "Skip.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    // Where in the dispatched events the first of `type` stands after `from`; seen.size() when there is none.
    std::size_t positionOf(EventsLink const& link, std::uint32_t type, std::size_t from = 0)
    {
        auto const found = std::find_if(link.seen.begin() + static_cast<std::ptrdiff_t>(from), link.seen.end(),
                                        [&](Seen const& entry) { return entry.event.type == type; });
        return static_cast<std::size_t>(found - link.seen.begin());
    }
}

TEST_CASE("events: tcp reports INITIATOR_CONNECTED, then INITIATOR_DISCONNECTED with a reason when the initiator leaves")
{
    EventsLink link{transports().front(), "smpte291_59.94.json"};
    if (backendOf(link.targetDomain.fabrics) == "ucx")
    {
        MXL_SKIP("a ucx target is connectionless: its worker does not report the initiators that reach or leave it");
    }
    REQUIRE(link.driveUntil([&] { return !link.seenOf(MXL_FABRICS_EVENT_INITIATOR_CONNECTED).empty(); }));
    auto const connected = link.seenOf(MXL_FABRICS_EVENT_INITIATOR_CONNECTED);
    REQUIRE(connected.size() == 1);
    CHECK(connected.front().connection.connectionId >= 1);
    CHECK(std::string{connected.front().connection.reason}.empty());

    REQUIRE(mxlFabricsInitiatorRemoveTarget(link.initiator.initiator, link.target.ticket) == MXL_STATUS_OK);
    REQUIRE(link.driveUntil([&] { return !link.seenOf(MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED).empty(); }));
    auto const disconnected = link.seenOf(MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED);
    REQUIRE(disconnected.size() == 1);
    CHECK(disconnected.front().connection.connectionId == connected.front().connection.connectionId);
    CHECK_FALSE(std::string{disconnected.front().connection.reason}.empty());
}

TEST_CASE("events: an shm target reports no connection events")
{
    auto const all = transports();
    auto const& shm = all.back();
    REQUIRE(shm.provider == MXL_FABRICS_PROVIDER_SHM);
    EventsLink link{shm, "smpte291_59.94.json"};
    writeGrain(link.source, 12, 3);
    link.transferGrain(12, 0, link.totalSlices());
    CHECK(link.seenOf(MXL_FABRICS_EVENT_INITIATOR_CONNECTED).empty());
    CHECK(link.seenOf(MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED).empty());
}

TEST_CASE("events: a tcp target busy with one initiator's grains reports another initiator's arrival and departure, and goes quiet")
{
    auto const transport = transports().front();
    EventsLink link{transport, "smpte291_59.94.json", 0, 1'000'000'000};
    if (backendOf(link.targetDomain.fabrics) == "ucx")
    {
        MXL_SKIP("a ucx target is connectionless: its worker does not report the initiators that reach or leave it");
    }
    while (link.dispatch(0ms) > 0)
    {
    }
    auto const before = link.seen.size();
    // The second initiator reads the target's own flow: it only connects and leaves.
    InitiatorEnd second{
        link.targetDomain, link.destination,
        interfaceConfig(transport.provider, transport.initiatorNode.empty() ? nullptr : transport.initiatorNode.c_str(), nullptr)};
    Sender sender{link, 2000, 29};
    auto const arrivals = [&] { return link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED).size(); };
    auto const dispatchUntil = [&](auto const& done)
    {
        auto const deadline = std::chrono::steady_clock::now() + 30s;
        while (!done() && std::chrono::steady_clock::now() < deadline)
        {
            static_cast<void>(mxlFabricsInitiatorMakeProgressNonBlocking(second.initiator));
            if (pollReadable(link.fd, 1ms))
            {
                static_cast<void>(link.dispatch(0ms));
            }
        }
        return done();
    };
    REQUIRE(dispatchUntil([&] { return arrivals() >= 5; }));
    REQUIRE(mxlFabricsInitiatorAddTarget(second.initiator, link.target.ticket) == MXL_STATUS_OK);
    REQUIRE(dispatchUntil([&] { return link.seenOf(MXL_FABRICS_EVENT_INITIATOR_CONNECTED).size() == 2; }));
    auto const arrivedWhenConnected = arrivals();
    REQUIRE(dispatchUntil([&] { return arrivals() >= arrivedWhenConnected + 5; }));
    REQUIRE(mxlFabricsInitiatorRemoveTarget(second.initiator, link.target.ticket) == MXL_STATUS_OK);
    REQUIRE(dispatchUntil([&] { return !link.seenOf(MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED).empty(); }));
    auto const arrivedWhenGone = arrivals();
    REQUIRE(dispatchUntil([&] { return arrivals() >= arrivedWhenGone + 5; }));
    // The transfer under way completes only while the target is dispatched.
    sender.stop();
    REQUIRE(dispatchUntil([&] { return sender.done(); }));
    CHECK(sender.finish() == 0);
    REQUIRE(dispatchUntil([&] { return arrivals() == sender.sent().size(); }));

    // The connection and the departure were dispatched between grains, not after the stream.
    auto const connected = positionOf(link, MXL_FABRICS_EVENT_INITIATOR_CONNECTED, before);
    auto const departed = positionOf(link, MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED, before);
    CHECK(positionOf(link, MXL_FABRICS_EVENT_GRAIN_ARRIVED, before) < connected);
    CHECK(positionOf(link, MXL_FABRICS_EVENT_GRAIN_ARRIVED, connected) < departed);
    CHECK(positionOf(link, MXL_FABRICS_EVENT_GRAIN_ARRIVED, departed) < link.seen.size());
    auto const connections = link.seenOf(MXL_FABRICS_EVENT_INITIATOR_CONNECTED);
    CHECK(link.seenOf(MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED).front().connection.connectionId ==
          connections.back().connection.connectionId);

    // Every grain arrived once, in order; the last ones still in the target's ring hold their bytes.
    std::vector<std::uint64_t> indices;
    for (auto const& event : link.seenOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED))
    {
        indices.push_back(event.grain.index);
    }
    CHECK(indices == sender.sent());
    auto const checked = std::min<std::size_t>(sender.sent().size(), 8);
    for (auto i = sender.sent().size() - checked; i < sender.sent().size(); ++i)
    {
        auto const landed = readBack(link.destination, sender.sent()[i]);
        REQUIRE(landed.has_value());
        CHECK(landed->checksum == sender.checksums()[i]);
    }

    // What the stream's end left for the target is taken by a few more dispatches; then nothing keeps it awake.
    for (int i = 0; i < 10 && pollReadable(link.fd, 0ms); ++i)
    {
        static_cast<void>(link.dispatch(0ms));
    }
    CHECK_FALSE(pollReadable(link.fd, 0ms));
}
