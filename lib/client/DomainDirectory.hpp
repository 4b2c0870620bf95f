// What a domain directory holds, read from the file system: the flows are the "<uuid>.mxl-flow" directories
// (the public API has no call that lists them).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace mxl::client
{
    // Throws ClientError(DomainUnavailable) naming the path when it does not exist or is not a directory.
    void requireDomainDirectory(std::filesystem::path const& domain);

    // The ids of the flow directories in `domain`, sorted. Entries whose stem is not a canonical UUID (such as the
    // ".mxl-tmp-*" directories of flows being created) are skipped.
    std::vector<std::string> listFlowIds(std::filesystem::path const& domain);

    // Throws ClientError(FlowNotFound) naming the flow and the domain when the directory of flow `flowId` is not in `domain`.
    void requireFlowDirectory(std::filesystem::path const& domain, std::string const& flowId);
}
