#include "HttpRequest.hpp"

#include <fmt/format.h>
#include <httplib.h>

namespace mxl
{
    std::variant<HttpAnswer, std::string> httpRequest(std::string const& origin, std::string const& method, std::string const& path,
                                                      std::string const& jsonBody, std::chrono::milliseconds timeout)
    {
        httplib::Client client{origin};
        auto const seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
        auto const micros = std::chrono::duration_cast<std::chrono::microseconds>(timeout - seconds);
        client.set_connection_timeout(seconds.count(), micros.count());
        client.set_read_timeout(seconds.count(), micros.count());
        client.set_write_timeout(seconds.count(), micros.count());
        httplib::Request request;
        request.method = method;
        request.path = path;
        // A DELETE carries no body; the others carry JSON, empty or not.
        if (method != "DELETE")
        {
            request.body = jsonBody;
            request.set_header("Content-Type", "application/json");
        }
        auto const result = client.send(request);
        if (!result)
        {
            return fmt::format("{} {}{} failed: {}", method, origin, path, httplib::to_string(result.error()));
        }
        return HttpAnswer{result->status, result->body};
    }

    std::string describeAnswer(std::string const& origin, std::string const& method, std::string const& path, HttpAnswer const& answer)
    {
        return fmt::format("{} {}{} answered {}: {}", method, origin, path, answer.status, answer.body);
    }
}
