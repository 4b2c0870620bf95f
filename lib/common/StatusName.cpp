#include "common/StatusName.hpp"

#include <fmt/format.h>

namespace mxl
{
    namespace
    {
        char const* knownName(mxlStatus status)
        {
            switch (status)
            {
            case MXL_STATUS_OK:
                return "MXL_STATUS_OK";
            case MXL_ERR_UNKNOWN:
                return "MXL_ERR_UNKNOWN";
            case MXL_ERR_FLOW_NOT_FOUND:
                return "MXL_ERR_FLOW_NOT_FOUND";
            case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
                return "MXL_ERR_OUT_OF_RANGE_TOO_LATE";
            case MXL_ERR_OUT_OF_RANGE_TOO_EARLY:
                return "MXL_ERR_OUT_OF_RANGE_TOO_EARLY";
            case MXL_ERR_INVALID_FLOW_READER:
                return "MXL_ERR_INVALID_FLOW_READER";
            case MXL_ERR_INVALID_FLOW_WRITER:
                return "MXL_ERR_INVALID_FLOW_WRITER";
            case MXL_ERR_TIMEOUT:
                return "MXL_ERR_TIMEOUT";
            case MXL_ERR_INVALID_ARG:
                return "MXL_ERR_INVALID_ARG";
            case MXL_ERR_CONFLICT:
                return "MXL_ERR_CONFLICT";
            case MXL_ERR_PERMISSION_DENIED:
                return "MXL_ERR_PERMISSION_DENIED";
            case MXL_ERR_FLOW_INVALID:
                return "MXL_ERR_FLOW_INVALID";
            case MXL_ERR_STRLEN:
                return "MXL_ERR_STRLEN";
            case MXL_ERR_INTERRUPTED:
                return "MXL_ERR_INTERRUPTED";
            case MXL_ERR_NO_FABRIC:
                return "MXL_ERR_NO_FABRIC";
            case MXL_ERR_INVALID_STATE:
                return "MXL_ERR_INVALID_STATE";
            case MXL_ERR_INTERNAL:
                return "MXL_ERR_INTERNAL";
            case MXL_ERR_NOT_READY:
                return "MXL_ERR_NOT_READY";
            case MXL_ERR_NOT_FOUND:
                return "MXL_ERR_NOT_FOUND";
            case MXL_ERR_EXISTS:
                return "MXL_ERR_EXISTS";
            case MXL_ERR_UNSUPPORTED_OPERATION:
                return "MXL_ERR_UNSUPPORTED_OPERATION";
            }
            return nullptr;
        }
    }

    std::string statusName(mxlStatus status)
    {
        auto const* name = knownName(status);
        return name != nullptr ? fmt::format("{} ({})", name, static_cast<int>(status))
                               : fmt::format("status {}", static_cast<int>(status));
    }
}
