// Errors inside the libraries are exceptions carrying an mxlStatus; the C API turns them back into statuses in one
// place (guard), logging each failure once with the function that failed.
#pragma once

#include <mxl/mxl.h>

#include "common/CodedError.hpp"
#include "common/Log.hpp"

#include <fmt/format.h>

#include <new>
#include <type_traits>
#include <utility>

namespace mxl
{
    class Error : public CodedError<mxlStatus>
    {
    public:
        using CodedError::CodedError;

        [[nodiscard]] mxlStatus status() const noexcept
        {
            return code();
        }
    };

    template <typename... Args>
    [[noreturn]] void fail(mxlStatus status, fmt::format_string<Args...> format, Args&&... args)
    {
        throw Error{status, fmt::format(format, std::forward<Args>(args)...)};
    }

    // Runs `body` for the C function `function`, translating every exception. A body that returns nothing succeeded
    // when it returns; one that returns an mxlStatus says itself.
    template <typename Body>
    mxlStatus guard(char const* function, Body&& body) noexcept
    {
        try
        {
            if constexpr (std::is_void_v<std::invoke_result_t<Body>>)
            {
                std::forward<Body>(body)();
                return MXL_STATUS_OK;
            }
            else
            {
                return std::forward<Body>(body)();
            }
        }
        catch (Error const& e)
        {
            log::error("{}: {}", function, e.what());
            return e.status();
        }
        catch (std::bad_alloc const&)
        {
            log::error("{}: out of memory", function);
            return MXL_ERR_UNKNOWN;
        }
        catch (std::exception const& e)
        {
            log::error("{}: {}", function, e.what());
            return MXL_ERR_UNKNOWN;
        }
        catch (...)
        {
            log::error("{}: unknown exception", function);
            return MXL_ERR_UNKNOWN;
        }
    }
}
