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

#include "UnreachableTicket.hpp"

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
        // Replaced at once, or added beside the first until that one's end is noticed.
        CHECK(sender.targetStatus(std::chrono::steady_clock::now()).back().epoch == second.epoch);
        auto const movedBefore = countersOf(targetMetrics).units;
        REQUIRE(stepUntil(sender, [&] { return observer.connections == 2 && countersOf(targetMetrics).units >= movedBefore + 30; }));
        auto const status = sender.targetStatus(std::chrono::steady_clock::now());
        REQUIRE(status.size() == 1);
        CHECK(status.front().epoch == second.epoch);
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

TEST_CASE("sessions: a new incarnation is added beside a receiving target, which keeps receiving until the new one connects")
{
    auto const definition = mxl::test::readFile(mxl::test::sourcePath("flows/smpte291_59.94.json"));
    SourceEnd const source{"session-source", definition};
    TargetEnd first{"session-first", definition};
    auto const& flow = source.writer.config();
    auto const cursor = mxl::bridge::makeSourceCursor(source.reader.get(), flow, sessionFlowId);
    Metrics senderMetrics{"initiator", sessionFlowId, flow};
    CountingObserver observer;
    constexpr auto connectTimeout = 1s;
    SenderSession sender{
        source.initiator.get(), *cursor, flow, senderMetrics, {sessionFlowId, "tcp", connectTimeout, 5s, 40ms, 100ms, 1s}, observer};
    PatternWriter const writer{source.writer.get(), flow.common.grainRate};
    auto const firstTicket = mxl::directory::libraryTicket(first.receiving.ticket());
    sender.offer(firstTicket, "the first ticket");
    REQUIRE(stepUntil(sender, [&] { return countersOf(first.metrics).units >= 30; }));
    auto const epochs = [&]
    {
        std::vector<std::uint64_t> result;
        for (auto const& target : sender.targetStatus(std::chrono::steady_clock::now()))
        {
            result.push_back(target.epoch);
        }
        return result;
    };

    SUBCASE("a target that refuses connections: the first keeps every grain, and its ticket again drops the new one")
    {
        mxl::test::UnreachableTicket const unreachable{first.receiving.ticket()};
        sender.offer(mxl::directory::libraryTicket(unreachable.json()), "the unreachable ticket");
        CHECK(epochs() == std::vector{firstTicket.epoch, unreachable.epoch()});
        auto const before = countersOf(first.metrics).units;
        auto const until = std::chrono::steady_clock::now() + 2 * connectTimeout;
        REQUIRE(stepUntil(sender, [&] { return std::chrono::steady_clock::now() >= until; }));
        // Two connect timeouts at 59.94 grains/s is about 120 grains; a loaded machine still moves a quarter of them.
        CHECK(countersOf(first.metrics).units >= before + 30);
        auto const status = sender.targetStatus(std::chrono::steady_clock::now());
        REQUIRE(status.size() == 2);
        CHECK(status.front().state == "connected");
        CHECK(status.back().state != "connected");
        CHECK(countersOf(senderMetrics).reconnects == 0);
        sender.offer(firstTicket, "the first ticket");
        CHECK(epochs() == std::vector{firstTicket.epoch});
        checkArrivedGrains(first.checkReader.get());
    }

    SUBCASE("a target that connects: grains move there, and the first gets no more")
    {
        TargetEnd second{"session-second", definition};
        auto const secondTicket = mxl::directory::libraryTicket(second.receiving.ticket());
        sender.offer(secondTicket, "the second ticket");
        CHECK(epochs() == std::vector{firstTicket.epoch, secondTicket.epoch});
        REQUIRE(stepUntil(sender, [&] { return epochs() == std::vector{secondTicket.epoch} && countersOf(second.metrics).units >= 30; }));
        auto const firstUnits = countersOf(first.metrics).units;
        auto const secondUnits = countersOf(second.metrics).units;
        REQUIRE(stepUntil(sender, [&] { return countersOf(second.metrics).units >= secondUnits + 30; }));
        // At most the transfer under way when the first was removed, counted by its receiving thread after.
        CHECK(countersOf(first.metrics).units <= firstUnits + 1);
        CHECK(observer.connections == 2);
        CHECK(countersOf(senderMetrics).reconnects == 1);
        checkArrivedGrains(second.checkReader.get());
    }

    sender.disconnect();
    CHECK(sender.targetStatus(std::chrono::steady_clock::now()).empty());
}
