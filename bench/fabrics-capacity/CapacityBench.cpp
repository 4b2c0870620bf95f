// mxl-fabrics-capacity-bench: how many live (real-time paced) flows one host bridges with zero late and zero lost
// grains, through the real tools (mxl) beside paced plain-libfabric streams (raw) measured in the same run. For each
// provider and format N is raised until a run has a late or lost grain, separately for each path.
#include "CapacityOptions.hpp"
#include "CapacityRun.hpp"
#include "CapacityTable.hpp"
#include "InterruptFlag.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
    using namespace mxl::bench::capacity;

    enum class Path
    {
        mxl,
        raw
    };

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
        auto const name = path == Path::mxl ? "mxl" : "raw";
        fmt::print(stderr, "mxl-fabrics-capacity-bench: {} {} flows {} {} ...\n", shape.provider, shape.format.name, describeFlows(shape),
                   name);
        try
        {
            return {path == Path::mxl ? runMxlCapacity(shape, tools) : runRawCapacity(shape), {}};
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

    std::string describeCapacity(PathProgress const& progress, bool measured)
    {
        if (!measured)
        {
            return "not measured (--paths)";
        }
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
            PathProgress mxl;
            mxl.active = _options.measureMxl;
            PathProgress raw;
            raw.active = _options.measureRaw;
            std::optional<std::pair<PathProgress, PathProgress>> afterOneFlow;
            raise(shape, 1, mxl, raw, [&] { afterOneFlow = {mxl, raw}; });
            summarize(shape, mxl, raw);
            if (_options.fanOut && _options.maxFlows >= 2 && afterOneFlow)
            {
                shape.fanOut = true;
                auto [fanOutMxl, fanOutRaw] = *afterOneFlow;
                raise(shape, 2, fanOutMxl, fanOutRaw, [] {});
                summarize(shape, fanOutMxl, fanOutRaw);
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
        void raise(RunShape& shape, std::uint32_t firstFlows, PathProgress& mxl, PathProgress& raw, AfterFirst const& afterFirst)
        {
            for (auto flows = firstFlows; flows <= _options.maxFlows && (mxl.active || raw.active); ++flows)
            {
                shape.flows = flows;
                auto const mxlCell = mxl.active ? measure(shape, Path::mxl, _options.tools) : PathCell{};
                auto const rawCell = raw.active ? measure(shape, Path::raw, _options.tools) : PathCell{};
                printTableRow(shape, mxlCell, rawCell);
                _allMeasured = _allMeasured && (mxlCell.skipped() || mxlCell.result) && (rawCell.skipped() || rawCell.result);
                advance(mxl, mxlCell, flows);
                advance(raw, rawCell, flows);
                if (flows == firstFlows)
                {
                    afterFirst();
                }
            }
        }

        void summarize(RunShape const& shape, PathProgress const& mxl, PathProgress const& raw)
        {
            _summaries.push_back(fmt::format("capacity {} {} {}: mxl {}; raw {}", shape.provider, shape.format.name,
                                             shape.fanOut ? "fan-out (targets of one initiator)" : "independent flows",
                                             describeCapacity(mxl, _options.measureMxl), describeCapacity(raw, _options.measureRaw)));
        }
    };
}

int main(int argc, char** argv)
{
    CapacityOptions options;
    try
    {
        options = parseCapacityOptions(argc, argv);
    }
    catch (std::invalid_argument const& e)
    {
        fmt::print(stderr, "mxl-fabrics-capacity-bench: {}\n", e.what());
        return 2;
    }
    if (options.help)
    {
        fmt::print("{}", capacityUsage());
        return 0;
    }
    installInterruptHandlers();

    fmt::print("# mxl-fabrics-capacity-bench: {} s window after {} s warm-up per run, N up to {}; latency in µs from the TAI "
               "timestamp to arrival, CPU per flow in % of one core (see --help)\n",
               options.seconds, options.warmupSeconds, options.maxFlows);
    printTableHeader();
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
