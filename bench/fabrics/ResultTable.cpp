#include "ResultTable.hpp"

#include <fmt/format.h>

namespace mxl::bench
{
    namespace
    {
        std::string figures(MeasuredRow const& row)
        {
            if (!row.result)
            {
                return fmt::format("{} | | | | |", row.failure);
            }
            auto const& r = *row.result;
            return fmt::format("{:.0f} | {:.2f} | {:.3f} | {:.3f} | {:.0f} / {:.0f} | {:.2f} / {:.2f}", r.grainsPerSecond,
                               r.gigabytesPerSecond, r.initiatorCpuSecondsPerGigabyte, r.targetCpuSecondsPerGigabyte, r.latency.medianUs,
                               r.latency.p99Us, r.initiatorAllocationsPerGrain, r.targetAllocationsPerGrain);
        }

        char const* verdict(bool met)
        {
            return met ? "PASS" : "MISS";
        }

        std::string comparison(MeasuredRow const& rawRow, MeasuredRow const& mxlRow)
        {
            if (!rawRow.result || !mxlRow.result)
            {
                return " | ";
            }
            auto const& raw = *rawRow.result;
            auto const& mxl = *mxlRow.result;
            auto const throughput = mxl.grainsPerSecond / raw.grainsPerSecond;
            auto const initiatorCpu = mxl.initiatorCpuSecondsPerGigabyte / raw.initiatorCpuSecondsPerGigabyte;
            auto const targetCpu = mxl.targetCpuSecondsPerGigabyte / raw.targetCpuSecondsPerGigabyte;
            return fmt::format("{:.2f}x {} | {:.2f}x / {:.2f}x {}", throughput, verdict(throughput >= throughputTarget), initiatorCpu,
                               targetCpu, verdict(initiatorCpu <= cpuTarget && targetCpu <= cpuTarget));
        }
    }

    void printProviderTable(std::string const& provider, std::vector<SizeRows> const& rows)
    {
        fmt::print("\n## {}\n\n", provider);
        fmt::print(
            "| grain | path | grains/s | GB/s | initiator CPU s/GB | target CPU s/GB | latency median / p99 (µs) "
            "| heap allocations per grain initiator / target | mxl/raw throughput (≥ {}x) | mxl/raw CPU initiator / target (≤ {}x) |\n",
            throughputTarget, cpuTarget);
        fmt::print("|---|---|---|---|---|---|---|---|---|---|\n");
        for (auto const& size : rows)
        {
            fmt::print("| {} | raw | {} | | |\n", size.format.name, figures(size.raw));
            for (auto const& mxl : size.mxl)
            {
                fmt::print("| {} | mxl {} | {} | {} |\n", size.format.name, mxl.backend, figures(mxl.row), comparison(size.raw, mxl.row));
            }
        }
        std::fflush(stdout);
    }
}
