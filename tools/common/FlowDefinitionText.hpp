// A flow's definition as its writer gave it, read through the public API (mxlGetFlowDef).
#pragma once

#include "MxlHandles.hpp"

#include <string>

namespace mxl::tools
{
    // Throws ToolError: FlowNotFound when the flow is not (or no longer) in the domain, Failure naming the status
    // otherwise.
    std::string readFlowDefinition(Instance const& instance, std::string const& flowId);
}
