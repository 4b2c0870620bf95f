#include "CheckMxlStatus.hpp"

#include <fmt/format.h>

namespace mxl::bench
{
    MxlStatusError::MxlStatusError(mxlStatus status, std::string_view what)
        : std::runtime_error{fmt::format("{} failed with mxlStatus {}", what, static_cast<int>(status))}
        , _status{status}
    {
    }

    void checkMxlStatus(mxlStatus status, std::string_view what)
    {
        if (status != MXL_STATUS_OK)
        {
            throw MxlStatusError{status, what};
        }
    }

    bool checkMxlReady(mxlStatus status, std::string_view what)
    {
        // TOO_LATE: a target read a completion after the slot was rewritten (the grain is lost, the link is fine).
        if (status == MXL_ERR_NOT_READY || status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
        {
            return false;
        }
        checkMxlStatus(status, what);
        return true;
    }
}
