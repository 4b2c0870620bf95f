// The demo's command line.
#pragma once

#include <mxl/fabrics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::demo
{
    struct DemoOptions
    {
        std::string domain;
        // Target: path of the NMOS flow definition. Initiator: the flow id.
        std::string flow;
        // Target only: writer options JSON file.
        std::string flowOptionsFile;
        bool initiator = false;
        std::string node;
        std::string service;
        // ANY: choose automatically (efa > verbs > tcp > shm; the initiator follows its ticket's provider).
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        // Target: at most one file to write the ticket JSON to. Initiator: one ticket per target.
        std::vector<std::string> targetInfo;
        // Grains to move before stopping; 0 = until SIGINT/SIGTERM.
        std::uint64_t count = 0;
        // Initiator: how long the targets may take to accept the connection.
        double connectTimeoutSeconds = 10.0;
    };

    // Parses argv. Returns nullopt after printing the help (--help); throws ToolError(Usage) on a bad command line.
    std::optional<DemoOptions> parseDemoOptions(int argc, char** argv);
}
