// What the wake benches (mxl-flow-bench, mxl-fabrics-events-bench) share: their command line and the frame of their main.
#pragma once

#include <functional>
#include <string_view>

namespace mxl::bench
{
    // What --help says a wake bench's --wakes and --grains count, and what the bench prints.
    struct WakeBenchHelp
    {
        std::string_view wakes;
        std::string_view grains;
        std::string_view prints;
    };

    // The whole of a wake bench's main: reads --wakes N and --grains N (positive counts: how many wakes each row samples,
    // how many grains each throughput or arrival row moves) and -h/--help as readOptions does, then calls `run` with the
    // counts. Returns the status main returns: readOptions', or 1 after printing what `run` threw after the name of
    // `program`, or 0.
    [[nodiscard]] int runWakeBench(int argc, char** argv, std::string_view program, WakeBenchHelp const& help,
                                   std::function<void(int wakes, int grains)> const& run);
}
