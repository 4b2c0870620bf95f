// A failure of the client layer, classed by what went wrong, so that a program can answer each class its own way: the
// command-line tools exit with the class's value (docs/tools.md, "Exit status"), so that scripts can tell a typo from a
// missing flow.
#pragma once

#include "common/CodedError.hpp"

#include <fmt/format.h>

#include <utility>

namespace mxl::client
{
    enum class ErrorKind : int
    {
        // An mxl call failed or the flow misbehaved.
        Failure = 1,
        // Bad input: a malformed mxl:// address, an invalid UUID, an unreadable or invalid definition or option.
        Usage = 2,
        // The domain does not exist, is not a directory or cannot be opened.
        DomainUnavailable = 3,
        // The named flow does not exist in the domain.
        FlowNotFound = 4,
    };

    class ClientError : public CodedError<ErrorKind>
    {
    public:
        using CodedError::CodedError;

        [[nodiscard]] ErrorKind kind() const noexcept
        {
            return code();
        }
    };

    template <typename... Args>
    [[noreturn]] void badInput(fmt::format_string<Args...> format, Args&&... args)
    {
        throw ClientError{ErrorKind::Usage, fmt::format(format, std::forward<Args>(args)...)};
    }

    template <typename... Args>
    [[noreturn]] void runtimeFailure(fmt::format_string<Args...> format, Args&&... args)
    {
        throw ClientError{ErrorKind::Failure, fmt::format(format, std::forward<Args>(args)...)};
    }
}
