#include "FlowSnapshot.hpp"

#include "ToolError.hpp"
#include "common/StatusName.hpp"
#include <client/FlowDefinitionText.hpp>

#include <mxl/flow.h>
#include <mxl/time.h>

#include <fmt/format.h>

namespace mxl::tools::info
{
    namespace
    {
        void check(mxlStatus status, char const* call, std::string const& flowId)
        {
            if (status == MXL_ERR_FLOW_NOT_FOUND)
            {
                throw ToolError{ErrorKind::FlowNotFound, fmt::format("flow {} disappeared while being read ({})", flowId, call)};
            }
            if (status != MXL_STATUS_OK)
            {
                throw ToolError{ErrorKind::Failure, fmt::format("{} for flow {} failed: {}", call, flowId, statusName(status))};
            }
        }
    }

    FlowSnapshot readFlowSnapshot(client::Instance const& instance, std::string const& flowId)
    {
        client::FlowReader const reader{instance, flowId};
        FlowSnapshot snapshot;
        snapshot.id = flowId;
        check(mxlFlowReaderGetInfo(reader.get(), &snapshot.info), "mxlFlowReaderGetInfo", flowId);
        snapshot.nowIndex = mxlGetCurrentIndex(&snapshot.info.config.common.grainRate);
        check(mxlIsFlowActive(instance.get(), flowId.c_str(), &snapshot.active), "mxlIsFlowActive", flowId);
        snapshot.definition = client::readFlowDefinition(instance.get(), flowId);
        snapshot.description = client::tryParseFlowDescription(snapshot.definition).value_or(client::FlowDescription{});
        return snapshot;
    }
}
