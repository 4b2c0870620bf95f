// The output of mxl-fabrics-capacity-bench: one markdown table, a row per provider, format and N with the measured
// paths side by side, then one summary line per provider, format and topology.
#pragma once

#include "CapacityRun.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mxl::bench::capacity
{
    // What one path has in a row: figures, why it could not be measured, or nothing (not run at this N).
    struct PathCell
    {
        std::optional<PathResult> result;
        std::string failure;

        [[nodiscard]] bool skipped() const noexcept
        {
            return !result && failure.empty();
        }
    };

    // Five columns for each of `paths`, in their order.
    void printTableHeader(std::vector<Path> const& paths);

    // One cell per path of the header.
    void printTableRow(RunShape const& shape, std::vector<PathCell> const& cells);

    // N as the flows column shows it: "3", or "1->3" for fan-out.
    std::string describeFlows(RunShape const& shape);
}
