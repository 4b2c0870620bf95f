#include "GarbageCollection.hpp"

#include "ServiceLines.hpp"
#include "ToolError.hpp"
#include "common/StatusName.hpp"
#include <client/DomainDirectory.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace mxl::tools::info
{
    void collectGarbage(client::Instance const& instance, std::filesystem::path const& domain)
    {
        auto const before = client::listFlowIds(domain);
        if (auto const status = mxlGarbageCollectFlows(instance.get()); status != MXL_STATUS_OK)
        {
            throw ToolError{ErrorKind::Failure,
                            fmt::format("garbage collection of domain '{}' failed: {}", domain.string(), statusName(status))};
        }
        auto const after = client::listFlowIds(domain);

        // The library only logs its count; comparing the directory before and after tells which flows went. A flow
        // that a writer released meanwhile would be counted too, which is rare and harmless for a report.
        std::vector<std::string> removed;
        std::ranges::set_difference(before, after, std::back_inserter(removed));
        for (auto const& id : removed)
        {
            fmt::print("removed {}\n", id);
        }
        fmt::print("garbage collection removed {} of {} flows in {}; {} remain\n", removed.size(), before.size(), domain.string(),
                   after.size());
        collectServiceStatusFiles(domain);
    }
}
