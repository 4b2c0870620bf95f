// One HTTP request with a JSON body (IS-05 PATCHes, IS-04 registration) and a deadline on connecting, sending and
// reading, so that an unreachable peer never holds the caller's thread long.
#pragma once

#include <chrono>
#include <string>
#include <variant>

namespace mxl
{
    struct HttpAnswer
    {
        int status = 0;
        std::string body;
    };

    // `method` (POST, PATCH or DELETE) of `path` at `origin` (http://host:port); the answer, whatever its status, or why
    // there is none ("<method> <origin><path> failed: <reason>").
    std::variant<HttpAnswer, std::string> httpRequest(std::string const& origin, std::string const& method, std::string const& path,
                                                      std::string const& jsonBody, std::chrono::milliseconds timeout);

    // "<method> <origin><path> answered <status>: <body>", for a log line about an answer that was not the one wanted.
    std::string describeAnswer(std::string const& origin, std::string const& method, std::string const& path, HttpAnswer const& answer);
}
