// One HTTP/1.0 GET of an http:// URL with one deadline for the whole exchange (a peer that drips its answer cannot
// stretch it), so that an unreachable target or registry never holds a caller's loop (and its watchdog pings) for long.
#pragma once

#include <chrono>
#include <string>
#include <variant>

namespace mxl
{
    struct HttpFailure
    {
        std::string reason;
    };

    // The body of a 200 response, or why there is none.
    std::variant<std::string, HttpFailure> httpGet(std::string const& url, std::chrono::milliseconds timeout);
}
