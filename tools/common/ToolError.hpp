// A fatal error of a command-line program: the message for stderr and the exit status it maps to. Both programs use
// the same statuses so that scripts can tell a typo from a missing flow.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace mxl::tools
{
    enum class ExitCode : int
    {
        Success = 0,
        // An mxl call failed or the flow misbehaved while the program ran.
        Failure = 1,
        // Bad command line: unknown option, malformed mxl:// address, invalid UUID, unreadable or invalid input file.
        Usage = 2,
        // The domain does not exist, is not a directory or cannot be opened.
        DomainUnavailable = 3,
        // The named flow does not exist in the domain.
        FlowNotFound = 4,
    };

    class ToolError : public std::runtime_error
    {
    public:
        ToolError(ExitCode code, std::string const& message)
            : std::runtime_error{message}
            , _code{code}
        {
        }

        [[nodiscard]] ExitCode code() const noexcept
        {
            return _code;
        }

    private:
        ExitCode _code;
    };

    template <typename... Args>
    [[noreturn]] void badInput(fmt::format_string<Args...> format, Args&&... args)
    {
        throw ToolError{ExitCode::Usage, fmt::format(format, std::forward<Args>(args)...)};
    }

    template <typename... Args>
    [[noreturn]] void runtimeFailure(fmt::format_string<Args...> format, Args&&... args)
    {
        throw ToolError{ExitCode::Failure, fmt::format(format, std::forward<Args>(args)...)};
    }
}
