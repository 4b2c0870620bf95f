// The output of mxl-fabrics-capacity-bench: one markdown table, a row per provider, format and N with the mxl and raw
// paths side by side, then one summary line per provider, format and topology.
#pragma once

#include "CapacityRun.hpp"

#include <optional>
#include <string>

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

    void printTableHeader();

    void printTableRow(RunShape const& shape, PathCell const& mxl, PathCell const& raw);

    // N as the flows column shows it: "3", or "1->3" for fan-out.
    std::string describeFlows(RunShape const& shape);
}
