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
        if (status == MXL_ERR_NOT_READY)
        {
            return false;
        }
        checkMxlStatus(status, what);
        return true;
    }
}
