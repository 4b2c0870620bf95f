#include "FlowDefinitionText.hpp"

#include "ElementFailure.hpp"
#include "common/StatusName.hpp"

#include <mxl/flow.h>

#include <fmt/format.h>

#include <vector>

namespace mxl::gst
{
    std::string flowDefinitionText(mxlInstance instance, std::string const& flowId)
    {
        // The first call only asks for the size.
        std::size_t size = 0;
        mxlGetFlowDef(instance, flowId.c_str(), nullptr, &size);
        std::vector<char> text(size + 1, '\0');
        if (auto const status = mxlGetFlowDef(instance, flowId.c_str(), text.data(), &size); status != MXL_STATUS_OK)
        {
            throw flowFailure(fmt::format("mxlGetFlowDef of flow {} failed: {}", flowId, mxl::statusName(status)));
        }
        return text.data();
    }
}
