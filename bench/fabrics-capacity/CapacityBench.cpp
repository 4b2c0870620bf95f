// mxl-fabrics-capacity-bench: how many live (real-time paced) flows one host bridges with zero late and zero lost
// grains, through the real tools (mxl) beside paced plain-libfabric streams (raw) measured in the same run. For each
// provider and format N is raised until a run has a late or lost grain, separately for each path.
#include "BenchCommandLine.hpp"
#include "CapacityOptions.hpp"
#include "CapacityRun.hpp"
#include "CapacityTable.hpp"
#include "InterruptFlag.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
    using namespace mxl::bench::capacity;

    // Where one path stands while N is raised.
    struct PathProgress
    {
        // Measured at the next N: every run so far had no late and no lost grain.
        bool active = true;
        std::uint32_t largestClean = 0;
        // The N whose run could not be measured, which ended the search without an answer beyond largestClean.
        std::optional<std::uint32_t> unmeasuredAt;
    };

    PathCell measure(RunShape const& shape, Path path, ToolPaths const& tools)
    {
        auto const name = pathName(path);
        fmt::print(stderr, "mxl-fabrics-capacity-bench: {} {} flows {} {} ...\n", shape.provider, shape.format.name, describeFlows(shape),
                   name);
        try
        {
            return {path == Path::raw ? runRawCapacity(shape) : runMxlCapacity(shape, tools, path == Path::redundant), {}};
        }
        catch (Interrupted const&)
        {
            throw;
        }
        catch (std::exception const& e)
        {
            fmt::print(stderr, "mxl-fabrics-capacity-bench: {} {} flows {} {} not measured: {}\n", shape.provider, shape.format.name,
                       describeFlows(shape), name, e.what());
            return {std::nullopt, e.what()};
        }
    }

    void advance(PathProgress& progress, PathCell const& cell, std::uint32_t flows)
    {
        if (cell.skipped())
        {
            return;
        }
        if (!cell.result)
        {
            progress.active = false;
            progress.unmeasuredAt = flows;
            return;
        }
        if (cell.result->clean())
        {
            progress.largestClean = flows;
        }
        else
        {
            progress.active = false;
        }
    }

    std::string describeCapacity(PathProgress const& progress)
    {
        if (progress.unmeasuredAt)
        {
            return fmt::format("{} (the run with N = {} could not be measured)", progress.largestClean, *progress.unmeasuredAt);
        }
        if (progress.active)
        {
            return fmt::format(">= {} (no late or lost grain up to --max-flows)", progress.largestClean);
        }
        return fmt::format("{}", progress.largestClean);
    }

    class CapacitySearch
    {
    public:
        explicit CapacitySearch(CapacityOptions const& options)
            : _options{options}
        {
        }

        // Independent flows from N = 1, then fan-out from 1->2 (1->1 is the first row's single flow).
        void run(std::string const& provider, MediaFormat const& format)
        {
            RunShape shape{provider, format, 1, false, _options.warmupSeconds, _options.seconds};
            // One per path of --paths, in its order.
            std::vector<PathProgress> progress(_options.paths.size());
            std::optional<std::vector<PathProgress>> afterOneFlow;
            raise(shape, 1, progress, [&] { afterOneFlow = progress; });
            summarize(shape, progress);
            if (_options.fanOut && _options.maxFlows >= 2 && afterOneFlow)
            {
                shape.fanOut = true;
                raise(shape, 2, *afterOneFlow, [] {});
                summarize(shape, *afterOneFlow);
            }
        }

        [[nodiscard]] bool allMeasured() const noexcept
        {
            return _allMeasured;
        }

        void printSummaries() const
        {
            fmt::print("\n");
            for (auto const& line : _summaries)
            {
                fmt::print("{}\n", line);
            }
        }

    private:
        CapacityOptions const& _options;
        std::vector<std::string> _summaries;
        bool _allMeasured = true;

        template <typename AfterFirst>
        void raise(RunShape& shape, std::uint32_t firstFlows, std::vector<PathProgress>& progress, AfterFirst const& afterFirst)
        {
            auto const anyActive = [&] { return std::ranges::any_of(progress, [](PathProgress const& path) { return path.active; }); };
            for (auto flows = firstFlows; flows <= _options.maxFlows && anyActive(); ++flows)
            {
                shape.flows = flows;
                std::vector<PathCell> cells;
                for (std::size_t i = 0; i < progress.size(); ++i)
                {
                    cells.push_back(progress[i].active ? measure(shape, _options.paths[i], _options.tools) : PathCell{});
                }
                printTableRow(shape, cells);
                for (std::size_t i = 0; i < progress.size(); ++i)
                {
                    _allMeasured = _allMeasured && (cells[i].skipped() || cells[i].result);
                    advance(progress[i], cells[i], flows);
                }
                if (flows == firstFlows)
                {
                    afterFirst();
                }
            }
        }

        void summarize(RunShape const& shape, std::vector<PathProgress> const& progress)
        {
            std::vector<std::string> capacities;
            for (std::size_t i = 0; i < progress.size(); ++i)
            {
                capacities.push_back(fmt::format("{} {}", pathName(_options.paths[i]), describeCapacity(progress[i])));
            }
            _summaries.push_back(fmt::format("capacity {} {} {}: {}", shape.provider, shape.format.name,
                                             shape.fanOut ? "fan-out (targets of one initiator)" : "independent flows",
                                             fmt::join(capacities, "; ")));
        }
    };
}

int main(int argc, char** argv)
{
    CapacityOptions options;
    if (auto const exitCode = mxl::bench::readOptions(
            options, [&] { return parseCapacityOptions(argc, argv); }, "mxl-fabrics-capacity-bench", capacityUsage()))
    {
        return *exitCode;
    }
    installInterruptHandlers();

    fmt::print("# mxl-fabrics-capacity-bench: {} s window after {} s warm-up per run, N up to {}; latency in µs from the TAI "
               "timestamp to arrival, CPU per flow in % of one core (see --help)\n",
               options.seconds, options.warmupSeconds, options.maxFlows);
    printTableHeader(options.paths);
    CapacitySearch search{options};
    try
    {
        for (auto const& provider : options.providers)
        {
            for (auto const& format : options.formats)
            {
                search.run(provider, format);
            }
        }
    }
    catch (Interrupted const&)
    {
        fmt::print(stderr, "mxl-fabrics-capacity-bench: interrupted; every child was stopped and every temporary file removed\n");
        return 130;
    }
    catch (std::exception const& e)
    {
        fmt::print(stderr, "mxl-fabrics-capacity-bench: {}\n", e.what());
        return 1;
    }
    search.printSummaries();
    return search.allMeasured() ? 0 : 1;
}
