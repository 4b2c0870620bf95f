#include "bridge/SourceCursor.hpp"

#include "bridge/GrainCursor.hpp"
#include "bridge/SampleCursor.hpp"
#include "common/StatusName.hpp"

#include <fmt/format.h>

namespace mxl::bridge
{
    std::unique_ptr<SourceCursor> makeSourceCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string const& flowId,
                                                   GrainReading grains)
    {
        if (transferUnitOf(flow) == TransferUnit::Batch)
        {
            return std::make_unique<SampleCursor>(reader, flow, flowId);
        }
        return std::make_unique<GrainCursor>(reader, flow, flowId, grains);
    }

    std::runtime_error readFailure(std::string const& what, std::string const& flowId, mxlStatus status)
    {
        if (status == MXL_ERR_FLOW_INVALID)
        {
            return std::runtime_error{
                fmt::format("reading {} of flow {} failed: the flow was deleted or re-created by its writer", what, flowId)};
        }
        return std::runtime_error{fmt::format("reading {} of flow {} failed: {}", what, flowId, statusName(status))};
    }
}
