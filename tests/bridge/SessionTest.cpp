// The sessions of lib/bridge in one process over tcp on 127.0.0.1: a receiver session on a target flow and a sender
// session reading a source flow that a writer fills at its rate. The sender follows the receiver's tickets: grains arrive
// byte for byte, a new epoch (the target rebuilt) is taken with the target replaced and grains flowing again, and a
// ticket the sender cannot use leaves the current target in place.
#include "SessionFixtures.hpp"

#include "bridge/SenderSession.hpp"

#include <client/FabricsHandles.hpp>
#include <client/InitiatorTargets.hpp>
#include <client/MxlHandles.hpp>
#include <directory/Ticket.hpp>

#include <doctest/doctest.h>

#include <functional>

using mxl::bridge::SenderSession;
using namespace mxl::test::sessions;

namespace
{
    struct CountingObserver final : SenderSession::Observer
    {
        std::atomic<int> connections{0};
        std::string activity;

        void connected() override
        {
            ++connections;
        }

        void establishing(std::string const& what) override
        {
            activity = what;
        }
    };

    // Steps `sender` until `done` holds; false when the deadline passed first.
    bool stepUntil(SenderSession& sender, std::function<bool()> const& done)
    {
        auto const until = std::chrono::steady_clock::now() + deadline;
        while (!done())
        {
            if (std::chrono::steady_clock::now() >= until)
            {
                return false;
            }
            sender.step(std::chrono::steady_clock::now());
        }
        return true;
    }
}

TEST_CASE("sessions: a sender follows a receiver's tickets over tcp: grains arrive intact, a new epoch replaces the target, an "
          "unusable ticket changes nothing")
{
    auto const definition = mxl::test::readFile(mxl::test::sourcePath("flows/smpte291_59.94.json"));
    SourceEnd const source{"session-source", definition};
    TargetEnd target{"session-target", definition};
    auto& receiving = target.receiving;
    auto const& targetMetrics = target.metrics;
    auto const& checkReader = target.checkReader;

    auto const& flow = source.writer.config();
    auto const cursor = mxl::bridge::makeSourceCursor(source.reader.get(), flow, sessionFlowId);
    Metrics senderMetrics{"initiator", sessionFlowId, flow};
    CountingObserver observer;
    SenderSession sender{source.initiator.get(), *cursor, flow, senderMetrics, {sessionFlowId, "tcp", 10s, 5s, 40ms, 100ms, 1s}, observer};
    PatternWriter const writer{source.writer.get(), flow.common.grainRate};

    auto const first = mxl::directory::libraryTicket(receiving.ticket());
    sender.offer(first, "the first ticket");
    REQUIRE(sender.hasTarget());
    CHECK(observer.activity.find(std::to_string(first.epoch)) != std::string::npos);
    REQUIRE(stepUntil(sender, [&] { return countersOf(senderMetrics).units >= 30 && countersOf(targetMetrics).units >= 30; }));
    CHECK(observer.connections == 1);
    CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().epoch == first.epoch);
    CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().state == "connected");
    checkArrivedGrains(checkReader.get());

    SUBCASE("a new epoch: the target is replaced and grains flow again")
    {
        auto const second = mxl::directory::libraryTicket(receiving.rebuild());
        REQUIRE(second.epoch != first.epoch);
        sender.offer(second, "the second ticket");
        CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().epoch == second.epoch);
        auto const movedBefore = countersOf(targetMetrics).units;
        REQUIRE(stepUntil(sender, [&] { return observer.connections == 2 && countersOf(targetMetrics).units >= movedBefore + 30; }));
        CHECK(countersOf(senderMetrics).reconnects == 1);
        checkArrivedGrains(checkReader.get());
        // The same incarnation again is no news.
        sender.offer(second, "the second ticket");
        CHECK(countersOf(senderMetrics).reconnects == 1);
    }

    SUBCASE("a ticket for another provider is refused and the target kept")
    {
        auto other = mxl::directory::libraryTicket(receiving.rebuild());
        other.provider = "shm";
        CHECK(sender.unusable(other).find("provider shm") != std::string::npos);
        sender.offer(other, "the shm ticket");
        CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().epoch == first.epoch);
        CHECK(countersOf(senderMetrics).reconnects == 0);
    }

    sender.disconnect();
    CHECK_FALSE(sender.hasTarget());
}
