// The steps every process test repeats: start a target and read its ticket, start an initiator and see it connect,
// check what arrived, stop a demo and read its summary. Each step fails the running doctest case with the demo's
// stderr when it goes wrong.
#pragma once

#include "DemoProcess.hpp"
#include "FlowChecker.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxl::test
{
    struct RunningTarget
    {
        std::unique_ptr<DemoProcess> process;
        std::string ticket;
    };

    RunningTarget startTarget(std::string const& domain, std::string const& definition, std::vector<std::string> const& arguments,
                              std::vector<std::string> const& launcher = {});

    // Waits for "connected to"; `extra` are further initiator arguments.
    std::unique_ptr<DemoProcess> startInitiator(std::string const& domain, std::string const& flowId,
                                                std::vector<std::string> const& tickets, std::vector<std::string> const& extra = {},
                                                std::vector<std::string> const& launcher = {});

    // At least `wanted` grains verified, none corrupted or foreign, and none missing that `initiator` did not report
    // lost or skipped for this target (its number in the initiator's -t order): a loaded machine may make it skip
    // grains, never lose them silently. Returns what the initiator reported.
    ReportedLosses checkIntact(CheckResult const& result, std::uint64_t wanted, DemoProcess& initiator, std::string const& context,
                               std::size_t targetNumber = 1);

    // SIGTERM, exit status 0 and a summary line; returns the summary (zeros when it failed).
    DemoSummary stopCleanly(DemoProcess& demo, std::string const& role);
}
