#include "CheckMxlStatus.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mxl::bench
{
    void checkMxlStatus(mxlStatus status, std::string const& what)
    {
        if (status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("{} failed with mxlStatus {}", what, static_cast<int>(status))};
        }
    }

    bool checkMxlReady(mxlStatus status, std::string const& what)
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
