// The demo's exit status, and the error that carries one up to main: scripts tell "fix the command line or the ticket"
// (2) from "something failed while running" (1).
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace mxl::demo
{
    enum class ExitCode : int
    {
        Ok = 0,
        RuntimeFailure = 1,
        BadInput = 2,
    };

    class DemoError : public std::runtime_error
    {
    public:
        DemoError(ExitCode code, std::string const& message)
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
        throw DemoError{ExitCode::BadInput, fmt::format(format, std::forward<Args>(args)...)};
    }

    template <typename... Args>
    [[noreturn]] void runtimeFailure(fmt::format_string<Args...> format, Args&&... args)
    {
        throw DemoError{ExitCode::RuntimeFailure, fmt::format(format, std::forward<Args>(args)...)};
    }
}
