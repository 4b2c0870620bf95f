// The command line of mxl-fabrics-bench.
#pragma once

#include "CpuPlacement.hpp"
#include "GrainFormat.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::bench
{
    struct BenchOptions
    {
        std::vector<std::string> providers{"tcp", "shm"};
        // libmxl-fabrics backends measured, one mxl row each.
        std::vector<std::string> backends{"ofi", "ucx"};
        std::vector<GrainFormat> formats;
        double seconds = 3.0;
        std::uint32_t depth = 4;
        // Runs per row; the row shows the run with the median throughput.
        std::uint32_t repeat = 1;
        // nullopt: leave both processes to the scheduler.
        std::optional<Placement> placement;
        bool help = false;
    };

    // Throws std::invalid_argument naming the option and the value it rejects.
    BenchOptions parseBenchOptions(int argc, char** argv);

    extern char const* const benchUsage;
}
