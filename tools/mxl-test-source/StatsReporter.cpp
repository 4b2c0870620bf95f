#include "StatsReporter.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <cstdio>

namespace mxl::tools::testsource
{
    namespace
    {
        constexpr std::uint64_t reportPeriodNs = 1'000'000'000;
    }

    StatsReporter::StatsReporter(std::vector<WriterStats const*> stats)
        : _stats{std::move(stats)}
        , _nextReportNs{mxlGetTime() + reportPeriodNs}
    {
    }

    void StatsReporter::run(std::uint64_t)
    {
        report();
        _nextReportNs += reportPeriodNs;
    }

    void StatsReporter::report() const
    {
        std::string line = "stats";
        char const* separator = " ";
        for (auto const* stats : _stats)
        {
            line += fmt::format("{}{} written={} late={} invalid={}", separator, stats->kind, stats->written, stats->late, stats->invalid);
            separator = " | ";
        }
        fmt::print("{}\n", line);
        // Scripts and tests read stdout through a pipe, where it would otherwise be block-buffered.
        std::fflush(stdout);
    }
}
