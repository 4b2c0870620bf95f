// Turning an mxlStatus into the benches' error form: an exception naming the call and the status.
#pragma once

#include <mxl/mxl.h>

#include <string>

namespace mxl::bench
{
    // Throws unless `status` is MXL_STATUS_OK; `what` names the call and its object.
    void checkMxlStatus(mxlStatus status, std::string const& what);

    // False for MXL_ERR_NOT_READY (nothing yet: wait or retry) and MXL_ERR_OUT_OF_RANGE_TOO_LATE (what a target read was
    // already rewritten: lost, the link is fine), true for MXL_STATUS_OK; throws for the rest.
    bool checkMxlReady(mxlStatus status, std::string const& what);
}
