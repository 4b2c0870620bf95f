// A connection ended on purpose over IS-05 is no fault: a receiver that lets its sender go, or whose sender was disabled
// (master_enable false on either), counts no stall and rebuilds nothing, and neither end warns. Stalls, reconnects and
// states are read from /metrics, the epoch from the target's ticket file.
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
    }

    TEST_CASE("is-05: a receiver that lets its sender go counts no stall, keeps its epoch and waits, and the sender waits without "
              "a warning")
    {
        ConnectedPair pair;
        auto const epoch = ticketEpoch(pair.directories.ticketFile());
        REQUIRE(epoch != 0);

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
    }

    TEST_CASE("is-05: a sender disabled on purpose is no stall at its receiver, which asks it when the flow turns idle, keeps its "
              "epoch and waits, and takes grains again once it is enabled")
    {
        ConnectedPair pair;
        auto const epoch = ticketEpoch(pair.directories.ticketFile());
        REQUIRE(epoch != 0);

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
    }
}
