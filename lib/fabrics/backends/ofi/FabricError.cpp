#include "fabrics/backends/ofi/FabricError.hpp"

#include "fabrics/core/Interrupted.hpp"

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <cstdlib>

namespace mxl::fabrics
{
    mxlStatus statusFromFabricError(int code) noexcept
    {
        switch (std::abs(code))
        {
        case FI_EINTR:
            return MXL_ERR_INTERRUPTED;
        case FI_EAGAIN:
            return MXL_ERR_NOT_READY;
        case FI_ENOSYS:
            return MXL_ERR_UNSUPPORTED_OPERATION;
        default:
            return MXL_ERR_UNKNOWN;
        }
    }

    bool isConnectionLoss(int code) noexcept
    {
        switch (std::abs(code))
        {
        case FI_ECONNRESET:
        case FI_ECONNREFUSED:
        case FI_ECONNABORTED:
        case FI_ENOTCONN:
        case FI_ESHUTDOWN:
        case FI_ETIMEDOUT:
        case FI_EHOSTUNREACH:
        case FI_ECANCELED:
        case FI_EIO:
        case EPIPE:
            return true;
        default:
            return false;
        }
    }

    std::string errorText(int error, int providerErrno, char const* providerText)
    {
        std::string text = fi_strerror(std::abs(error));
        if (providerErrno != 0 && providerText != nullptr && *providerText != '\0' && text != providerText)
        {
            text += fmt::format(" (provider: {})", providerText);
        }
        return text;
    }

    void throwFabricError(int code, char const* call, std::string_view object)
    {
        if (std::abs(code) == FI_EINTR)
        {
            throw Interrupted{fmt::format("{} was interrupted by a signal ({})", call, object)};
        }
        fail(statusFromFabricError(code), "{} failed for {}: {} ({})", call, object, fi_strerror(std::abs(code)), code);
    }
}
