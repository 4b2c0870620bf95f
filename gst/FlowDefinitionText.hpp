// The NMOS definition a flow was created with, as libmxl keeps it (mxlGetFlowDef).
#pragma once

#include <mxl/mxl.h>

#include <string>

namespace mxl::gst
{
    // Throws ElementFailure naming the flow and the status when libmxl cannot give it.
    std::string flowDefinitionText(mxlInstance instance, std::string const& flowId);
}
