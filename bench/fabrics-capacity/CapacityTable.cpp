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

    std::string_view pathName(Path path) noexcept
    {
        switch (path)
        {
        case Path::mxl:
            return "mxl";
        case Path::redundant:
            return "mxl-redundant";
        case Path::raw:
            return "raw";
        }
        return "?";
    }

    void printTableHeader(std::vector<Path> const& paths)
    {
        std::string header = "| provider | format | flows |";
        std::string rule = "|---|---|---|";
        for (auto const path : paths)
        {
            header +=
                fmt::format(" {0} late | {0} lost | {0} units | {0} latency p50 / p99 (µs) | {0} CPU init / tgt (%) |", pathName(path));
            rule += "---|---|---|---|---|";
        }
        fmt::print("{}\n{}\n", header, rule);
        std::fflush(stdout);
    }

    void printTableRow(RunShape const& shape, std::vector<PathCell> const& cells)
    {
        std::string row = fmt::format("| {} | {} | {} |", shape.provider, shape.format.name, describeFlows(shape));
        for (auto const& cell : cells)
        {
            row += fmt::format(" {} |", pathCells(cell));
        }
        fmt::print("{}\n", row);
        std::fflush(stdout);
    }
}
