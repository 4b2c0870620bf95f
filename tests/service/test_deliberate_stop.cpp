// A connection ended on purpose over IS-05 is no fault: a receiver that lets its sender go, or whose sender was disabled
// (master_enable false on either), counts no stall and rebuilds nothing, neither end warns, and when grains flow again
// neither counts the pause as lost. Stalls, reconnects, lost grains and states are read from /metrics, the epoch from the
// target's ticket file.
#include "ConnectionPair.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;

        // The lines of `log` after the first that contains `marker` (all of it when none does).
        std::string after(std::string const& log, std::string const& marker)
        {
            auto const at = log.find(marker);
            return at == std::string::npos ? log : log.substr(at);
        }

        // Twice the stall timeout (2 s) of silence: the target neither stalled nor rebuilt (its epoch is `epoch`) and
        // shows waiting, the initiator shows `initiatorState`, and neither counted a stall or a reconnect.
        void checkQuietWithoutStall(ConnectedPair& pair, std::uint64_t epoch, std::string const& initiatorState)
        {
            CHECK_FALSE(pair.target.waitForLine("stalled", 5s));
            CHECK(awaitState(pair.targetPort, "waiting") == "waiting");
            CHECK(awaitState(pair.initiatorPort, initiatorState) == initiatorState);
            for (auto const port : {pair.targetPort, pair.initiatorPort})
            {
                CHECK(metricValue(port, "mxl_stalls_total") == std::optional<std::uint64_t>{0});
                CHECK(metricValue(port, "mxl_reconnects_total") == std::optional<std::uint64_t>{0});
            }
            CHECK(ticketEpoch(pair.directories.ticketFile()) == epoch);
        }

        // The grains both ends counted as lost, read when the pause begins.
        struct LostAtStop
        {
            std::chrono::steady_clock::time_point at;
            std::uint64_t target;
            std::uint64_t initiator;
        };

        LostAtStop lostAtStop(ConnectedPair const& pair)
        {
            auto const target = metricValue(pair.targetPort, "mxl_grains_lost_total");
            auto const initiator = metricValue(pair.initiatorPort, "mxl_grains_lost_total");
            REQUIRE(target);
            REQUIRE(initiator);
            return {std::chrono::steady_clock::now(), *target, *initiator};
        }

        // Grains flow again after the pause: the grains of the pause (50 a second) are not lost at either end; what the
        // sender had under way when it stopped may be.
        void checkPauseNotLost(ConnectedPair& pair, LostAtStop const& before)
        {
            auto const pauseGrains =
                std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - before.at).count() * 50 / 1000;
            REQUIRE(pauseGrains >= 250);
            auto const target = metricValue(pair.targetPort, "mxl_grains_lost_total");
            auto const initiator = metricValue(pair.initiatorPort, "mxl_grains_lost_total");
            REQUIRE(target);
            REQUIRE(initiator);
            INFO("pause of ", pauseGrains, " grains; lost at the target ", before.target, " -> ", *target, ", at the initiator ",
                 before.initiator, " -> ", *initiator);
            CHECK(*target - before.target < 25);
            CHECK(*initiator - before.initiator < 25);
            auto const newStream = "since the sender stopped on purpose and starts a new stream";
            CHECK((pair.target.output().find(newStream) != std::string::npos || pair.target.waitForLine(newStream, 10s)));
        }
    }

    TEST_CASE("is-05: a receiver that lets its sender go counts no stall, keeps its epoch and waits, and the sender waits without "
              "a warning")
    {
        ConnectedPair pair;
        auto const epoch = ticketEpoch(pair.directories.ticketFile());
        REQUIRE(epoch != 0);
        auto const lost = lostAtStop(pair);

        auto const answer = pair.receiverApi.patch(pair.receiverPath("staged"),
                                                   R"({"master_enable": false, "activation": {"mode": "activate_immediate"}})");
        REQUIRE(answer.status == 200);
        REQUIRE(pair.target.waitForLine("IS-05: ticket taken back from sender", 10s));
        CHECK(pair.target.waitForLine("let its sender go: the flow's head standing still is no stall", 10s));
        CHECK(pair.initiator.waitForLine("IS-05: the receiver took its ticket back: sending stopped", 10s));
        CHECK(pair.initiator.waitForLine("is enabled without a ticket", 10s));

        checkQuietWithoutStall(pair, epoch, "waiting");
        auto const targetLog = after(pair.target.output(), "activated: master_enable false");
        auto const initiatorLog = after(pair.initiator.output(), "receiver none");
        CHECK(targetLog.find("warning:") == std::string::npos);
        CHECK(initiatorLog.find("warning:") == std::string::npos);

        // Activated again, the pair moves grains on the same epoch.
        pair.connectNow();
        requireFlowing(pair.verifier, 25, "after activating the receiver again");
        CHECK(ticketEpoch(pair.directories.ticketFile()) == epoch);
        CHECK(metricValue(pair.targetPort, "mxl_stalls_total") == std::optional<std::uint64_t>{0});
        checkPauseNotLost(pair, lost);
    }

    TEST_CASE("is-05: a sender disabled on purpose is no stall at its receiver, which asks it when the flow turns idle, keeps its "
              "epoch and waits, and takes grains again once it is enabled")
    {
        // A status interval as long as the stall timeout and more: the sender is asked before the stall all the same.
        ConnectedPair pair{{{"status_interval_ms", "5000"}}};
        auto const epoch = ticketEpoch(pair.directories.ticketFile());
        REQUIRE(epoch != 0);
        auto const lost = lostAtStop(pair);

        pair.setSenderEnabled(false);
        REQUIRE(pair.initiator.waitForLine("IS-05: master_enable false: sending stopped", 10s));
        CHECK(pair.target.waitForLine("is disabled (its master_enable false): the flow's head standing still is no stall", 10s));
        checkQuietWithoutStall(pair, epoch, "disabled");
        CHECK(after(pair.target.output(), "grains are arriving").find("warning:") == std::string::npos);

        pair.setSenderEnabled(true);
        requireFlowing(pair.verifier, 25, "after master_enable true");
        CHECK(ticketEpoch(pair.directories.ticketFile()) == epoch);
        CHECK(awaitState(pair.targetPort, "active") == "active");
        CHECK(metricValue(pair.targetPort, "mxl_stalls_total") == std::optional<std::uint64_t>{0});
        checkPauseNotLost(pair, lost);
    }
}
