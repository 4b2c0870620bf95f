// The client side of the ticket exchange: one HTTP/1.0 GET of an http:// URL with a deadline, so that an unreachable
// target never holds the service's loop (and its watchdog pings) for long.
#pragma once

#include <chrono>
#include <string>
#include <variant>

namespace mxl::service
{
    struct HttpFailure
    {
        std::string reason;
    };

    // The body of a 200 response, or why there is none.
    std::variant<std::string, HttpFailure> httpGet(std::string const& url, std::chrono::milliseconds timeout);
}
