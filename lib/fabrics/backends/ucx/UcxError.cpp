#include "fabrics/backends/ucx/UcxError.hpp"

#include "common/Status.hpp"

namespace mxl::fabrics::ucx
{
    mxlStatus statusOf(ucs_status_t status) noexcept
    {
        switch (status)
        {
        case UCS_OK:
            return MXL_STATUS_OK;
        case UCS_ERR_CONNECTION_RESET:
        case UCS_ERR_ENDPOINT_TIMEOUT:
        case UCS_ERR_UNREACHABLE:
        case UCS_ERR_CANCELED:
        case UCS_ERR_REJECTED:
        case UCS_ERR_NOT_CONNECTED:
        case UCS_ERR_IO_ERROR:
        case UCS_ERR_TIMED_OUT:
            return MXL_ERR_INTERRUPTED;
        case UCS_ERR_NO_RESOURCE:
        case UCS_ERR_BUSY:
        case UCS_INPROGRESS:
            return MXL_ERR_NOT_READY;
        case UCS_ERR_INVALID_PARAM:
        case UCS_ERR_INVALID_ADDR:
            return MXL_ERR_INVALID_ARG;
        case UCS_ERR_UNSUPPORTED:
            return MXL_ERR_UNSUPPORTED_OPERATION;
        case UCS_ERR_NO_DEVICE:
            return MXL_ERR_NO_FABRIC;
        default:
            return MXL_ERR_UNKNOWN;
        }
    }

    void checkUcx(ucs_status_t status, std::string_view what)
    {
        if (status != UCS_OK)
        {
            fail(statusOf(status), "{}: {}", what, ucs_status_string(status));
        }
    }
}
