// A libmxl call that failed, as an ElementFailure naming the call, the flow and the status.
#pragma once

#include <mxl/mxl.h>

#include <cstdint>

namespace mxl::gst
{
    // Throws flowFailure("<call> of index <index> failed: <status name>") unless `status` is MXL_STATUS_OK.
    void checkStatus(mxlStatus status, char const* call, std::uint64_t index);

    // The same failure, for a status the caller already knows is not MXL_STATUS_OK.
    [[noreturn]] void throwStatus(mxlStatus status, char const* call, std::uint64_t index);
}
