// A flow's definition as its writer gave it, read through the public API (mxlGetFlowDef).
#pragma once

#include <mxl/mxl.h>

#include <string>

namespace mxl::client
{
    // Throws ClientError: FlowNotFound when the flow is not (or no longer) in the domain, Failure naming the status
    // otherwise.
    std::string readFlowDefinition(mxlInstance instance, std::string const& flowId);
}
