// The stop watchdog: a process stuck in a call that never returns still ends when asked, naming what it was doing.
#include "Process.hpp"

#include <ExitRequest.hpp>

#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <string>

namespace mxl::test
{
    namespace
    {
        // stderr of the stuck tool into its stdout, which the test reads.
        Process startStuckTool(std::string const& argument = "none")
        {
            return Process{{"/bin/sh", "-c", "exec \"$0\" \"$1\" 2>&1", MXL_STUCK_TOOL, argument}};
        }
    }

    TEST_CASE("a stuck process asked to stop twice, a second apart, exits at once with 1, naming what it was stuck in")
    {
        auto tool = startStuckTool();
        REQUIRE(tool.waitForLine("stuck", std::chrono::seconds{10}));
        tool.signal(SIGTERM);
        // The first request alone does not end it yet; a second within a second of it is the same request.
        CHECK_FALSE(tool.wait(std::chrono::milliseconds{1500}));
        tool.signal(SIGINT);
        CHECK(tool.wait(std::chrono::seconds{10}) == std::optional<int>{1});
        auto const said = tool.drainOutput(std::chrono::seconds{1});
        INFO(said);
        CHECK(said.find("stuck-tool: asked to stop a second time; exiting now (stuck in: a call that never returns (stuck-tool))") !=
              std::string::npos);
    }

    TEST_CASE("a stuck process asked to stop once exits with 1 after the stop deadline, naming what it was stuck in")
    {
        auto tool = startStuckTool();
        REQUIRE(tool.waitForLine("stuck", std::chrono::seconds{10}));
        auto const asked = std::chrono::steady_clock::now();
        tool.signal(SIGTERM);
        auto const status = tool.wait(tools::stopDeadline + std::chrono::seconds{20});
        auto const took = std::chrono::steady_clock::now() - asked;
        CHECK(status == std::optional<int>{1});
        CHECK(took >= tools::stopDeadline);
        auto const said = tool.drainOutput(std::chrono::seconds{1});
        INFO(said);
        CHECK(said.find("still running 20 s after it was asked to stop; exiting now (stuck in: a call that never returns") !=
              std::string::npos);
    }

    TEST_CASE("a loop that marked progress and then makes none is reported once after the stuck limit, naming what it is in")
    {
        auto tool = startStuckTool("progress");
        REQUIRE(tool.waitForLine("stuck", std::chrono::seconds{10}));
        auto const report = tool.waitForLine("no progress for", tools::stuckAfter + std::chrono::seconds{20});
        REQUIRE(report);
        CHECK(*report == "stuck-tool: no progress for 10 s; stuck in: a call that never returns (stuck-tool)");
        // It goes on running: the report is for the operator, the stop is still theirs.
        CHECK_FALSE(tool.wait(std::chrono::milliseconds{0}));
        tool.signal(SIGTERM);
        CHECK_FALSE(tool.wait(std::chrono::milliseconds{1500}));
        tool.signal(SIGINT);
        CHECK(tool.wait(std::chrono::seconds{10}) == std::optional<int>{1});
    }
}
