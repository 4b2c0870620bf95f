// One measurement of a capacity run: N live flows of one format over one provider, by one path, for a window of S
// seconds after a warm-up. The mxl path runs the real tools; the raw path runs paced plain-libfabric streams.
#pragma once

#include "MediaFormat.hpp"
#include "Percentiles.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace mxl::bench::capacity
{
    // How long a run waits for its processes or its endpoints to start before it gives the row up.
    constexpr auto runStartTimeout = std::chrono::seconds{15};

    // How a row's flows are bridged: by the mxl tools, by them with every flow over two redundant fabric paths (the demo
    // target's --path twice, the initiator sending each grain on both), or by plain libfabric. Table order.
    enum class Path
    {
        mxl,
        redundant,
        raw
    };
    inline constexpr std::array allPaths{Path::mxl, Path::redundant, Path::raw};
    // "mxl", "mxl-redundant", "raw": as --paths and the table name them.
    std::string_view pathName(Path path) noexcept;

    struct RunShape
    {
        std::string provider;
        MediaFormat format;
        std::uint32_t flows = 1;
        // One initiator feeding `flows` targets of one flow, instead of `flows` independent flows.
        bool fanOut = false;
        double warmupSeconds = 2.0;
        double measureSeconds = 20.0;
    };

    // Where the mxl path finds the programs it runs and the flow definitions they read.
    struct ToolPaths
    {
        std::string demo;
        std::string testSource;
        std::string flowsDirectory;
    };

    // The figures of one path for one row. Late and lost count events: one grain can be counted by more than one of
    // the counters that make them up (a grain the source wrote late and the initiator then skipped counts twice).
    struct PathResult
    {
        std::uint64_t late = 0;
        std::uint64_t lost = 0;
        // Units (grains, audio batches) the targets received in the window.
        std::uint64_t arrived = 0;
        Percentiles latency;
        // CPU of the initiator and of the target processes, per flow (fan-out: per target), in % of one core.
        double initiatorCpuPercent = 0;
        double targetCpuPercent = 0;

        [[nodiscard]] bool clean() const noexcept
        {
            return late == 0 && lost == 0;
        }
    };

    // Both throw std::runtime_error naming the child or step that failed when the row cannot be measured, and
    // Interrupted on SIGINT/SIGTERM; every child is stopped and every file removed before they return or throw.
    // `redundant`: each target receives its flow over two fabric paths (tcp: 127.0.0.1 and ::1; shm: two endpoints).
    PathResult runMxlCapacity(RunShape const& shape, ToolPaths const& tools, bool redundant);
    PathResult runRawCapacity(RunShape const& shape);
}
