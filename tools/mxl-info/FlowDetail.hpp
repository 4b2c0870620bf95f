// Detail mode: everything the shared flow info says about one flow, with its latency and whether a writer holds it.
#pragma once

#include <client/MxlHandles.hpp>

#include <filesystem>
#include <string>

namespace mxl::tools::info
{
    // Throws ToolError(FlowNotFound) naming the flow and the domain when it does not exist.
    void printFlowDetail(client::Instance const& instance, std::filesystem::path const& domain, std::string const& flowId);
}
