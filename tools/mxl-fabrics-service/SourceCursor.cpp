#include "SourceCursor.hpp"

#include "GrainCursor.hpp"
#include "SampleCursor.hpp"

namespace mxl::service
{
    std::unique_ptr<SourceCursor> makeSourceCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string const& flowId)
    {
        if (transferUnitOf(flow) == TransferUnit::Batch)
        {
            return std::make_unique<SampleCursor>(reader, flow, flowId);
        }
        return std::make_unique<GrainCursor>(reader, flow, flowId);
    }
}
