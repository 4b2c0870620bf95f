#include "ReaderStatus.hpp"

#include "StatusCheck.hpp"

namespace mxl::gst
{
    std::uint64_t headIndexOf(mxlFlowReader reader)
    {
        mxlFlowRuntimeInfo runtime{};
        checkStatus(mxlFlowReaderGetRuntimeInfo(reader, &runtime), "mxlFlowReaderGetRuntimeInfo", 0);
        return runtime.headIndex;
    }

    ReadResult endedOrFailed(mxlStatus status, char const* call, std::uint64_t index)
    {
        if (status == MXL_ERR_FLOW_INVALID)
        {
            return ReadResult{ReadResult::Kind::ended};
        }
        throwStatus(status, call, index);
    }
}
