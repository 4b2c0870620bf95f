// Turning an mxlStatus into the benches' error form: an exception naming the call and the status.
#pragma once

#include <mxl/mxl.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace mxl::bench
{
    // What checkMxlStatus throws: the message names the call and the status, which a caller can also tell apart (a
    // refusal, MXL_ERR_UNSUPPORTED_OPERATION, is a result of the device bench, not a failure).
    class MxlStatusError : public std::runtime_error
    {
    public:
        MxlStatusError(mxlStatus status, std::string_view what);

        [[nodiscard]] mxlStatus status() const noexcept
        {
            return _status;
        }

    private:
        mxlStatus _status;
    };

    // Throws unless `status` is MXL_STATUS_OK; `what` names the call and its object. A view, so that a call in a measured
    // loop allocates nothing to name itself.
    void checkMxlStatus(mxlStatus status, std::string_view what);

    // False for MXL_ERR_NOT_READY (nothing yet: wait or retry) and MXL_ERR_OUT_OF_RANGE_TOO_LATE (what a target read was
    // already rewritten: lost, the link is fine), true for MXL_STATUS_OK; throws for the rest.
    bool checkMxlReady(mxlStatus status, std::string_view what);
}
