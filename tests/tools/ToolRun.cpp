#include "ToolRun.hpp"

#include "Process.hpp"
#include "TempDomain.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <optional>

namespace mxl::test
{
    namespace
    {
        // Single quotes keep every argument literal for the shell, which only adds the 2>&1.
        std::string shellQuoted(std::string const& text)
        {
            std::string quoted = "'";
            for (auto const c : text)
            {
                quoted += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
            }
            return quoted + "'";
        }
    }

    ToolResult runTool(std::filesystem::path const& program, std::vector<std::string> const& arguments)
    {
        auto command = "exec " + shellQuoted(program.string());
        for (auto const& argument : arguments)
        {
            command += " " + shellQuoted(argument);
        }
        command += " 2>&1";
        Process process{{"/bin/sh", "-c", command}};
        auto output = process.drainOutput(std::chrono::seconds{10});
        auto const exitCode = process.wait(std::chrono::seconds{5});
        REQUIRE_MESSAGE(exitCode.has_value(), program.filename().string(), " did not exit; output so far:\n", output);
        return ToolResult{*exitCode, output};
    }

    ToolResult checkTool(std::filesystem::path const& program, std::vector<std::string> const& arguments, int exitCode,
                         std::initializer_list<std::string> printed)
    {
        auto result = runTool(program, arguments);
        INFO(program.filename().string(), " printed:\n", result.output);
        CHECK(result.exitCode == exitCode);
        for (auto const& part : printed)
        {
            CAPTURE(part);
            CHECK(result.output.find(part) != std::string::npos);
        }
        return result;
    }

    std::filesystem::path mxlInfoPath()
    {
        return binaryPath("tools/mxl-info/mxl-info");
    }

    std::filesystem::path testSourcePath()
    {
        return binaryPath("tools/mxl-test-source/mxl-test-source");
    }

    std::filesystem::path toolTestData(std::string const& name)
    {
        return sourcePath("tests/tools/data/" + name);
    }
}
