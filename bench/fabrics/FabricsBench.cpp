// mxl-fabrics-bench: video grains moved between two processes by libmxl-fabrics, beside plain libfabric RMA writes of
// the same bytes with the same provider, endpoint type and queue depth, measured in the same run.
#include "BenchCommandLine.hpp"
#include "BenchOptions.hpp"
#include "ResultTable.hpp"
#include "TemporaryDomains.hpp"
#include "TransferRun.hpp"
#include "Transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace
{
    using namespace mxl::bench;

    constexpr double warmupSeconds = 0.5;
    // The mxl flows are 50 Hz, so a domain history of n × 20 ms gives rings of n grains.
    constexpr std::uint64_t nanosecondsPerGrain = 20'000'000;

    MeasuredRow measure(RunConfig const& config, TransportFactory const& factory, std::string const& path)
    {
        fmt::print(stderr, "mxl-fabrics-bench: {} {} {} ...\n", config.transport.provider, config.transport.format.name, path);
        try
        {
            return {runTransfer(config, factory), {}};
        }
        catch (std::exception const& e)
        {
            fmt::print(stderr, "mxl-fabrics-bench: {} {} {} failed: {}\n", config.transport.provider, config.transport.format.name, path,
                       e.what());
            return {std::nullopt, fmt::format("failed: {}", e.what())};
        }
    }

    // The run with the median throughput, whole (its CPU and latency figures belong to the same run); a failure wins.
    MeasuredRow medianRun(std::vector<MeasuredRow> runs)
    {
        auto const failed = std::find_if(runs.begin(), runs.end(), [](MeasuredRow const& run) { return !run.result; });
        if (failed != runs.end())
        {
            return *failed;
        }
        std::sort(runs.begin(), runs.end(),
                  [](MeasuredRow const& a, MeasuredRow const& b) { return a.result->grainsPerSecond < b.result->grainsPerSecond; });
        return runs[(runs.size() - 1) / 2];
    }

    std::string describePlacement(std::optional<Placement> const& placement)
    {
        return placement ? fmt::format("initiator and target pinned, {}", placement->describe()) : "not pinned";
    }
}

int main(int argc, char** argv)
{
    BenchOptions options;
    if (auto const exitCode = mxl::bench::readOptions(
            options, [&] { return parseBenchOptions(argc, argv); }, "mxl-fabrics-bench", benchUsage))
    {
        return *exitCode;
    }

    auto const ringSlots = std::max<std::uint32_t>(8, 2 * options.depth);
    bool anyFailed = false;
    try
    {
        TemporaryDomains const domains{"mxl-fabrics-bench", ringSlots * nanosecondsPerGrain};
        TransportFactory const raw{makeRawTarget, makeRawInitiator};
        TransportFactory const mxl{makeMxlTarget, makeMxlInitiator};
        fmt::print(
            "# mxl-fabrics-bench: {} s per run after {} s warm-up, median of {} run(s) by grains/s, {} grains in flight, rings of {} "
            "grains, {}\n",
            options.seconds, warmupSeconds, options.repeat, options.depth, ringSlots, describePlacement(options.placement));
        fmt::print("GB = 10^9 bytes of header (8192 B) + payload per grain; CPU = user + system time of each process over the measured "
                   "interval; latency = transfer call to the target's read returning.\n");
        for (auto const& provider : options.providers)
        {
            std::vector<SizeRows> rows;
            for (auto const& format : options.formats)
            {
                RunConfig config{{provider, format, options.depth, ringSlots, {}, {}},
                                 domains.target(),
                                 domains.initiator(),
                                 warmupSeconds,
                                 options.seconds,
                                 options.placement};
                // raw and each backend alternate, so that a burst of load on the shared machine hits every path alike.
                std::vector<MeasuredRow> rawRuns;
                std::vector<std::vector<MeasuredRow>> mxlRuns(options.backends.size());
                for (std::uint32_t run = 0; run < options.repeat; ++run)
                {
                    rawRuns.push_back(measure(config, raw, "raw"));
                    for (std::size_t b = 0; b < options.backends.size(); ++b)
                    {
                        auto backendConfig = config;
                        backendConfig.transport.backend = options.backends[b];
                        mxlRuns[b].push_back(mxlTransportAvailable()
                                                 ? measure(backendConfig, mxl, "mxl " + options.backends[b])
                                                 : MeasuredRow{std::nullopt, "not measured (built without libmxl-fabrics)"});
                    }
                }
                SizeRows size{format, medianRun(std::move(rawRuns)), {}};
                anyFailed = anyFailed || !size.raw.result;
                for (std::size_t b = 0; b < options.backends.size(); ++b)
                {
                    size.mxl.push_back({options.backends[b], medianRun(std::move(mxlRuns[b]))});
                    anyFailed = anyFailed || (mxlTransportAvailable() && !size.mxl.back().row.result);
                }
                rows.push_back(std::move(size));
            }
            printProviderTable(provider, rows);
        }
    }
    catch (std::exception const& e)
    {
        fmt::print(stderr, "mxl-fabrics-bench: {}\n", e.what());
        return 1;
    }
    return anyFailed ? 1 : 0;
}
