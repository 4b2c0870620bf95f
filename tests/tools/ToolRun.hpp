// Running the tools of the build tree as a user would, for the process-level tests.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace mxl::test
{
    struct ToolResult
    {
        int exitCode;
        // stdout and stderr interleaved, as a user sees them.
        std::string output;
    };

    // Runs `program` with `arguments` to completion (at most a few seconds) and captures both output streams.
    ToolResult runTool(std::filesystem::path const& program, std::vector<std::string> const& arguments);

    // runTool, then checks that the tool exited with `exitCode` and printed each of `printed`.
    ToolResult checkTool(std::filesystem::path const& program, std::vector<std::string> const& arguments, int exitCode,
                         std::initializer_list<std::string> printed);

    std::filesystem::path mxlInfoPath();
    std::filesystem::path testSourcePath();

    // A flow definition of tests/tools/data.
    std::filesystem::path toolTestData(std::string const& name);
}
