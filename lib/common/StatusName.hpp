// mxlStatus values by name, for error messages that a user can look up in mxl.h.
#pragma once

#include <mxl/mxl.h>

#include <string>

namespace mxl
{
    // "MXL_ERR_FLOW_NOT_FOUND (2)"; unknown values are shown by number.
    std::string statusName(mxlStatus status);
}
