// An exception that carries, beside the message a person reads, a code a program answers: each layer names its own
// Code type (an mxlStatus, a class of client failure, an HTTP status) so that catching one layer's errors never
// catches another's.
#pragma once

#include <stdexcept>
#include <string>

namespace mxl
{
    template <typename Code>
    class CodedError : public std::runtime_error
    {
    public:
        CodedError(Code code, std::string const& message)
            : std::runtime_error{message}
            , _code{code}
        {
        }

        [[nodiscard]] Code code() const noexcept
        {
            return _code;
        }

    private:
        Code _code;
    };
}
