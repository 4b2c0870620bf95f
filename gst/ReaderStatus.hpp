// What libmxl tells mxlsrc's grain and sample readers beyond the data they read: where the flow's head is, and that a
// read failed for good.
#pragma once

#include "ReadResult.hpp"

#include <mxl/flow.h>

#include <cstdint>

namespace mxl::gst
{
    // The index of the newest grain or sample committed to the flow; ElementFailure when libmxl cannot tell.
    std::uint64_t headIndexOf(mxlFlowReader reader);

    // A read that failed with a status the reader neither waits out nor skips past: the end of the flow when it was
    // deleted (MXL_ERR_FLOW_INVALID), otherwise an ElementFailure naming `call`, `index` and the status.
    ReadResult endedOrFailed(mxlStatus status, char const* call, std::uint64_t index);
}
