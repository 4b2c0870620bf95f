// The command line of mxl-fabrics-capacity-bench.
#pragma once

#include "CapacityRun.hpp"
#include "MediaFormat.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mxl::bench::capacity
{
    struct CapacityOptions
    {
        std::vector<std::string> providers{"tcp", "shm"};
        std::vector<MediaFormat> formats;
        // In table order.
        std::vector<Path> paths{Path::mxl, Path::raw};
        std::uint32_t maxFlows = 8;
        double seconds = 20.0;
        double warmupSeconds = 2.0;
        bool fanOut = true;
        ToolPaths tools;
        bool help = false;
    };

    // Throws std::invalid_argument naming the option and the value it rejects.
    CapacityOptions parseCapacityOptions(int argc, char** argv);

    // Usage, every option and every column of the output.
    std::string capacityUsage();
}
