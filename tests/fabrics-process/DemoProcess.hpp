// mxl-fabrics-demo run as a child process: stdout captured line by line, stderr kept in a file so that tests can
// check error messages after the fact, and the lines the demo promises ("Target info:", "summary:") parsed.
#pragma once

#include "Process.hpp"
#include "TempDomain.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace mxl::test
{
    struct DemoSummary
    {
        std::uint64_t grains = 0;
        std::uint64_t bytes = 0;
        std::uint64_t lost = 0;
    };

    // An initiator's account of what did not go out: grains no target got (lost=), transfers each target missed
    // (skipped=, in -t order), and transfers each target got flagged invalid because the source overwrote them before
    // that target read them (invalidated=).
    struct ReportedLosses
    {
        std::uint64_t lost = 0;
        std::vector<std::uint64_t> skipped;
        std::vector<std::uint64_t> invalidated;

        // The grains target `number` (1-based, in -t order) may lack, or hold flagged invalid, without a silent loss.
        [[nodiscard]] std::uint64_t forTarget(std::size_t number) const
        {
            auto const of = [&](std::vector<std::uint64_t> const& counts)
            { return number >= 1 && number <= counts.size() ? counts[number - 1] : 0; };
            return lost + of(skipped) + of(invalidated);
        }
    };

    // A redundant target's "paths:" line: per path, in --path order, the grains it delivered first, late, not at all,
    // and first ones whose copy was dropped.
    struct PathReport
    {
        std::vector<std::uint64_t> first;
        std::vector<std::uint64_t> late;
        std::vector<std::uint64_t> missing;
        std::vector<std::uint64_t> dropped;
    };

    class DemoProcess
    {
    public:
        // `launcher` runs before the demo (e.g. {"ip", "netns", "exec", "ns"} or {"env", "MXL_LOG_LEVEL=debug"}).
        explicit DemoProcess(std::vector<std::string> const& arguments, std::vector<std::string> const& launcher = {});

        // Target: waits for "Target info: <base64>" and returns the base64 (empty when it did not come in time).
        std::string waitForTicket(std::chrono::milliseconds timeout = std::chrono::seconds{10});

        std::optional<std::string> waitForLine(std::string const& needle, std::chrono::milliseconds timeout)
        {
            return _process.waitForLine(needle, timeout);
        }

        // SIGTERM, then the exit status (nullopt if it did not exit within `timeout`, and then the stacks of its threads
        // in errors()). Generous: a full suite on a loaded machine once stalled two tcp targets' teardown for ~10 s at once.
        std::optional<int> stop(std::chrono::milliseconds timeout = std::chrono::seconds{30});

        std::optional<int> wait(std::chrono::milliseconds timeout)
        {
            return _process.wait(timeout);
        }

        void signal(int signalNumber)
        {
            _process.signal(signalNumber);
        }

        // SIGKILL, wait, and remove the shm provider's files the process could not remove itself (libmxl-fabrics names
        // them mxl-<role>-<pid>-<n>); returns the exit status (128 + SIGKILL).
        std::optional<int> kill();

        // The "summary:" line among the remaining stdout (call after the process ended).
        std::optional<DemoSummary> summary();

        // Initiator: what it has reported missed up to now, from the first "stats:" line it prints after this call began
        // (it prints one a second; a process that ended gives its last one). Consumes the stdout lines up to that one.
        // nullopt without a stats line.
        std::optional<ReportedLosses> reportedLosses();

        // Target with --path: its newest "paths:" line, read like reportedLosses(). nullopt without one.
        std::optional<PathReport> pathReport();

        // Everything written to stderr so far.
        [[nodiscard]] std::string errors() const;

        [[nodiscard]] static std::string binary();

    private:
        TempDomain _logDirectory{"demo-log"};
        Process _process;

        // The capture groups of the first line containing `needle` printed after this call began that matches `pattern`
        // (waited for up to 10 s), else of the newest such line printed before; nullopt when none does.
        std::optional<std::vector<std::string>> newestMatch(std::string const& needle, std::regex const& pattern);
    };

    // Runs the demo to completion (it must exit within `timeout`) and returns its exit status; stderr in `errors`.
    int runDemo(std::vector<std::string> const& arguments, std::string& errors,
                std::chrono::milliseconds timeout = std::chrono::seconds{20});
}
