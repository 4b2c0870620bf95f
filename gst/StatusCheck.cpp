#include "StatusCheck.hpp"

#include "ElementFailure.hpp"
#include "common/StatusName.hpp"

#include <fmt/format.h>

namespace mxl::gst
{
    void checkStatus(mxlStatus status, char const* call, std::uint64_t index)
    {
        if (status != MXL_STATUS_OK)
        {
            throwStatus(status, call, index);
        }
    }

    void throwStatus(mxlStatus status, char const* call, std::uint64_t index)
    {
        throw flowFailure(fmt::format("{} of index {} failed: {}", call, index, mxl::statusName(status)));
    }
}
