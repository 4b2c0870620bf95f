// What every backend module does at its C boundary, so that the modules differ only in their transport: each call runs
// through run(), which turns an exception into its status and keeps the text the host reads with last_error_text (none
// for a signal that ended a wait: the host has nothing to log then); the entry accepts a host of the module's ABI major
// and sends the module's log lines through it. Header-only: each module compiles its own copy, with its own
// thread-local text.
#pragma once

#include "fabrics/core/Interrupted.hpp"
#include "fabrics/transport/HostLog.hpp"
#include "fabrics/transport/fabrics_backend.h"

#include <fmt/format.h>

#include <cstdint>
#include <new>
#include <string>
#include <utility>

namespace mxl::fabrics::backend
{
    inline thread_local std::string lastError;
    inline thread_local bool lastWasSignal = false;

    // A call refused without an exception: `status` with `text` for the host.
    inline mxlStatus refuse(mxlStatus status, std::string text)
    {
        lastError = std::move(text);
        lastWasSignal = false;
        return status;
    }

    template <typename Body>
    mxlStatus run(Body&& body) noexcept
    {
        try
        {
            std::forward<Body>(body)();
            return MXL_STATUS_OK;
        }
        catch (Interrupted const& e)
        {
            lastError = e.what();
            lastWasSignal = true;
            return MXL_ERR_INTERRUPTED;
        }
        catch (Error const& e)
        {
            return refuse(e.status(), e.what());
        }
        catch (std::bad_alloc const&)
        {
            return refuse(MXL_ERR_UNKNOWN, "out of memory");
        }
        catch (std::exception const& e)
        {
            return refuse(MXL_ERR_UNKNOWN, e.what());
        }
    }

    inline char const* lastErrorText()
    {
        return lastWasSignal ? nullptr : lastError.c_str();
    }

    // The entry's part before the module's own: the table goes out either way, so that the host can read why it was
    // refused; OK when the host speaks the module's ABI major, whose log then carries the module's lines.
    inline mxlStatus acceptHost(char const* name, std::uint32_t hostAbiVersion, mxlFabricsBackendHost const* host,
                                mxlFabricsBackend const& table, mxlFabricsBackend const** out_backend)
    {
        *out_backend = &table;
        if ((hostAbiVersion >> 16) != MXL_FABRICS_BACKEND_ABI_MAJOR)
        {
            return refuse(MXL_ERR_UNSUPPORTED_OPERATION, fmt::format("the {} backend implements backend ABI {}.x, the host needs {}.x",
                                                                     name, MXL_FABRICS_BACKEND_ABI_MAJOR, hostAbiVersion >> 16));
        }
        logThroughHost(host);
        return MXL_STATUS_OK;
    }
}
