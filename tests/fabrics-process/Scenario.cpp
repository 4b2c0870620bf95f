#include "Scenario.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace mxl::test
{
    RunningTarget startTarget(std::string const& domain, std::string const& definition, std::vector<std::string> const& arguments,
                              std::vector<std::string> const& launcher)
    {
        std::vector<std::string> all{"-d", domain, "-f", definition};
        all.insert(all.end(), arguments.begin(), arguments.end());
        RunningTarget target{std::make_unique<DemoProcess>(all, launcher), {}};
        target.ticket = target.process->waitForTicket();
        REQUIRE_MESSAGE(!target.ticket.empty(), "the target printed no ticket; stderr:\n", target.process->errors());
        return target;
    }

    std::unique_ptr<DemoProcess> startInitiator(std::string const& domain, std::string const& flowId,
                                                std::vector<std::string> const& tickets, std::vector<std::string> const& extra,
                                                std::vector<std::string> const& launcher)
    {
        std::vector<std::string> all{"-i", "-d", domain, "-f", flowId};
        for (auto const& ticket : tickets)
        {
            all.push_back("-t");
            all.push_back(ticket);
        }
        all.insert(all.end(), extra.begin(), extra.end());
        auto initiator = std::make_unique<DemoProcess>(all, launcher);
        REQUIRE_MESSAGE(initiator->waitForLine("connected to", std::chrono::seconds{15}).has_value(),
                        "the initiator did not connect; stderr:\n", initiator->errors());
        return initiator;
    }

    ReportedLosses checkIntact(CheckResult const& result, std::uint64_t wanted, DemoProcess& initiator, std::string const& context,
                               std::size_t targetNumber)
    {
        auto const losses = initiator.reportedLosses();
        auto const excused = losses ? losses->forTarget(targetNumber) : 0;
        INFO(context, ": verified ", result.verified, ", mismatched ", result.mismatched, ", unknown ", result.unknown, ", missing ",
             result.missing, ", invalidated ", result.invalidated, ", not looked at (checker overrun) ", result.overrun,
             ", reported by the initiator for target ", targetNumber, ": ",
             losses ? std::to_string(excused) : std::string{"(no stats line)"}, "; ", result.firstProblem, "; ", result.firstMissing,
             "\ninitiator stderr:\n", initiator.errors());
        CHECK(result.verified >= wanted);
        CHECK(result.mismatched == 0);
        CHECK(result.unknown == 0);
        REQUIRE(losses.has_value());
        CHECK(result.missing + result.invalidated <= excused);
        if (result.missing + result.invalidated + result.overrun > 0)
        {
            MESSAGE(context, ": ", result.missing, " grain(s) missing and ", result.invalidated, " invalidated (the initiator reported ",
                    excused, " lost, skipped or invalidated), ", result.overrun, " passed over by the checker, ", result.verified,
                    " verified");
        }
        return *losses;
    }

    DemoSummary stopCleanly(DemoProcess& demo, std::string const& role)
    {
        auto const status = demo.stop();
        CHECK_MESSAGE(status == std::optional<int>{0}, role, " exit status ", status.value_or(-1), "; stderr:\n", demo.errors());
        auto const summary = demo.summary();
        CHECK_MESSAGE(summary.has_value(), role, " printed no summary line; stderr:\n", demo.errors());
        return summary.value_or(DemoSummary{});
    }
}
