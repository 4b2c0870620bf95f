#include "CapacityTable.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace mxl::bench::capacity
{
    namespace
    {
        std::string pathCells(PathCell const& cell)
        {
            if (cell.result)
            {
                auto const& r = *cell.result;
                return fmt::format("{} | {} | {} | {:.0f} / {:.0f} | {:.1f} / {:.1f}", r.late, r.lost, r.arrived, r.latency.medianUs,
                                   r.latency.p99Us, r.initiatorCpuPercent, r.targetCpuPercent);
            }
            if (cell.skipped())
            {
                return "- | - | - | - | -";
            }
            // A '|' in the reason would split the cell.
            auto reason = cell.failure;
            std::replace(reason.begin(), reason.end(), '|', '/');
            return fmt::format("not measured: {} | | | |", reason);
        }
    }

    std::string describeFlows(RunShape const& shape)
    {
        return shape.fanOut ? fmt::format("1->{}", shape.flows) : fmt::format("{}", shape.flows);
    }

    void printTableHeader()
    {
        fmt::print("| provider | format | flows | mxl late | mxl lost | mxl units | mxl latency p50 / p99 (µs) | mxl CPU init / tgt (%) "
                   "| raw late | raw lost | raw units | raw latency p50 / p99 (µs) | raw CPU init / tgt (%) |\n"
                   "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        std::fflush(stdout);
    }

    void printTableRow(RunShape const& shape, PathCell const& mxl, PathCell const& raw)
    {
        fmt::print("| {} | {} | {} | {} | {} |\n", shape.provider, shape.format.name, describeFlows(shape), pathCells(mxl), pathCells(raw));
        std::fflush(stdout);
    }
}
