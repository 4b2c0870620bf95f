// The notify protocol as systemd sees it: READY=1 only when grains can move, WATCHDOG=1 at half of WATCHDOG_USEC,
// STOPPING=1 and exit 0 on SIGTERM.
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>

namespace mxl::test
{
    TEST_CASE("target: READY=1 once the ticket is published, watchdog pings at half WATCHDOG_USEC, STOPPING=1 and exit 0 on SIGTERM")
    {
        ServiceDirectories directories;
        NotifySocket notify;
        constexpr unsigned watchdogUsec = 400'000;
        ServiceProcess target{targetSettings(directories), notifyEnvironment(notify, watchdogUsec)};

        auto const ready = notify.waitFor("READY=1", std::chrono::seconds{10});
        REQUIRE_MESSAGE(ready, target.output());
        CHECK(ready->text.find("STATUS=state=waiting") != std::string::npos);
        // The ticket existed when READY=1 was sent: it is published first.
        CHECK(ticketEpoch(directories.ticketFile()) != 0);
        CHECK((std::filesystem::status(directories.ticketFile()).permissions() & std::filesystem::perms::all) ==
              (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));

        auto const pings = notify.collect("WATCHDOG=1", std::chrono::seconds{2});
        REQUIRE(pings.size() >= 3);
        auto const mean = (pings.back().at - pings.front().at) / static_cast<double>(pings.size() - 1);
        auto const ratio = std::chrono::duration<double>(mean).count() / (watchdogUsec / 2 / 1e6);
        INFO("mean ping interval / (WATCHDOG_USEC / 2) = ", ratio);
        CHECK(ratio > 0.7);
        // systemd acts only when no ping came for a whole WATCHDOG_USEC: a loaded machine may stretch the half period, but
        // the mean interval must stay clearly below the whole one.
        CHECK(ratio < 1.8);

        target.signal(SIGTERM);
        CHECK(notify.waitFor("STOPPING=1", std::chrono::seconds{5}));
        CHECK(target.wait(std::chrono::seconds{5}) == std::optional<int>{0});
        // A stopped target's ticket is withdrawn.
        CHECK_FALSE(std::filesystem::exists(directories.ticketFile()));
    }

    TEST_CASE("initiator: no READY=1 without a target, READY=1 once connected, grains intact, STOPPING=1 and exit 0 on SIGTERM")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        NotifySocket initiatorNotify;
        ServiceProcess initiator{initiatorSettings(directories, directories.ticketFile()), notifyEnvironment(initiatorNotify)};

        // No ticket yet: the initiator waits and says why (however long its start takes on a loaded machine), but is not
        // ready.
        CHECK(initiator.waitForLine("no ticket", std::chrono::seconds{30}).has_value());
        CHECK_FALSE(initiatorNotify.waitFor("READY=1", std::chrono::milliseconds{1500}));

        ReadyService target{targetSettings(directories)};
        auto const ready = initiatorNotify.waitFor("READY=1", std::chrono::seconds{5});
        REQUIRE_MESSAGE(ready, initiator.output());
        CHECK(ready->text.find("STATUS=state=active") != std::string::npos);
        CHECK(initiator.output().find("connected to the target") != std::string::npos);

        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        auto const result = verifier.check(25, std::chrono::seconds{5});
        CHECK(result.verified >= 25);
        CHECK(result.mismatched == 0);

        // STATUS= carries the figures too.
        auto const status = initiatorNotify.waitFor("STATUS=state=active", std::chrono::seconds{2});
        REQUIRE(status);
        CHECK(status->text.find("grains=") != std::string::npos);
        CHECK(status->text.find("rate=") != std::string::npos);

        initiator.signal(SIGTERM);
        CHECK(initiatorNotify.waitFor("STOPPING=1", std::chrono::seconds{5}));
        CHECK(initiator.wait(std::chrono::seconds{5}) == std::optional<int>{0});
        target.signal(SIGTERM);
        CHECK(target.wait(std::chrono::seconds{5}) == std::optional<int>{0});
    }
}
