// libfabric return codes become mxl::Error: the call that failed, fi_strerror's text and the status the SDK gives it.
#pragma once

#include <mxl/mxl.h>

#include "common/Status.hpp"

#include <rdma/fi_errno.h>

#include <string>
#include <string_view>

namespace mxl::fabrics
{
    // -FI_EINTR → INTERRUPTED, -FI_EAGAIN → NOT_READY, -FI_ENOSYS → UNSUPPORTED_OPERATION, anything else → UNKNOWN.
    [[nodiscard]] mxlStatus statusFromFabricError(int code) noexcept;

    // A completion or event error that means the peer went away (reset, refused, shut down, timed out).
    [[nodiscard]] bool isConnectionLoss(int code) noexcept;

    // The text of an error entry of a completion or event queue: fi_strerror of `error` ("Connection refused"), followed by
    // the provider's own text when it has a provider error number (tcp reports 0, whose text would be "Success").
    [[nodiscard]] std::string errorText(int error, int providerErrno, char const* providerText);

    // Throws Interrupted (Interrupted.hpp) for -FI_EINTR, an Error with the status of statusFromFabricError otherwise.
    [[noreturn]] void throwFabricError(int code, char const* call, std::string_view object);

    // `code` is what a fi_* call returned; negative values are errors.
    inline void check(long code, char const* call, std::string_view object)
    {
        if (code < 0)
        {
            throwFabricError(static_cast<int>(code), call, object);
        }
    }

    // `code` is what a post (fi_writemsg, fi_sendmsg, fi_recv) returned: false when the queue was full (-FI_EAGAIN),
    // true when posted; other errors throw. `describe()` words what was posted, called only for the error.
    template <typename Describe>
    bool posted(long code, char const* call, Describe const& describe)
    {
        if (code == -FI_EAGAIN)
        {
            return false;
        }
        if (code < 0)
        {
            throwFabricError(static_cast<int>(code), call, describe());
        }
        return true;
    }
}
