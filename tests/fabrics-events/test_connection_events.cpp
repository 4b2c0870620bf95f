// Connection changes as events: tcp reports an initiator's connection and its end, paired by connection id; shm has no
// connections and reports none.
#include "EventsLink.hpp"
#include "Skip.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

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
