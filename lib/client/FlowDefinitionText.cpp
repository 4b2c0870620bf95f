#include "FlowDefinitionText.hpp"

#include "ClientError.hpp"
#include "common/StatusName.hpp"

#include <mxl/flow.h>

namespace mxl::client
{
    std::string readFlowDefinition(mxlInstance instance, std::string const& flowId)
    {
        // Definitions are small; a first buffer that fits nearly all of them avoids the size query, which the library
        // answers with INVALID_ARG (and logs as an error).
        std::string text(4096, '\0');
        auto size = text.size();
        auto status = mxlGetFlowDef(instance, flowId.c_str(), text.data(), &size);
        if (status == MXL_ERR_INVALID_ARG && size > text.size())
        {
            text.resize(size);
            status = mxlGetFlowDef(instance, flowId.c_str(), text.data(), &size);
        }
        if (status == MXL_ERR_FLOW_NOT_FOUND)
        {
            throw ClientError{ErrorKind::FlowNotFound, fmt::format("flow {} disappeared while being read (mxlGetFlowDef)", flowId)};
        }
        if (status != MXL_STATUS_OK)
        {
            runtimeFailure("mxlGetFlowDef for flow {} failed: {}", flowId, statusName(status));
        }
        text.resize(size > 0 ? size - 1 : 0);
        return text;
    }
}
