// Failed system calls become mxl::Error with the status a caller of the C API can act on.
#pragma once

#include "common/Status.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace mxl
{
    // ENOENT means the flow is not there; EACCES/EPERM/EROFS mean the domain refuses us; the rest is unexpected.
    inline mxlStatus statusForErrno(int errorNumber) noexcept
    {
        switch (errorNumber)
        {
        case ENOENT:
            return MXL_ERR_FLOW_NOT_FOUND;
        case EACCES:
        case EPERM:
        case EROFS:
            return MXL_ERR_PERMISSION_DENIED;
        default:
            return MXL_ERR_UNKNOWN;
        }
    }

    // Throws for the system call described by `format`, appending the errno text.
    template <typename... Args>
    [[noreturn]] void failErrno(int errorNumber, fmt::format_string<Args...> format, Args&&... args)
    {
        fail(statusForErrno(errorNumber), "{}: {}", fmt::format(format, std::forward<Args>(args)...), std::strerror(errorNumber));
    }
}
