#include "HttpRoutes.hpp"

#include <common/Log.hpp>

#include <common/BoundedJson.hpp>

#include <fmt/format.h>

namespace mxl
{
    HttpReply errorReply(unsigned status, std::string const& error)
    {
        return {status, "application/json", dumpJson(nlohmann::json{{"code", status}, {"error", error}, {"debug", nullptr}})};
    }

    HttpRoutes::HttpRoutes(std::map<std::string, HttpResource> resources, std::map<std::string, HttpHandler> prefixHandlers)
        : _resources{std::move(resources)}
        , _prefixHandlers{std::move(prefixHandlers)}
    {
    }

    HttpReply HttpRoutes::answer(HttpRequest const& request) const
    {
        try
        {
            if (request.method == "OPTIONS")
            {
                return {200, "text/plain", ""};
            }
            for (auto const& [prefix, handler] : _prefixHandlers)
            {
                if (request.path.starts_with(prefix))
                {
                    return handler(request);
                }
            }
            return answerResource(request);
        }
        catch (std::exception const& error)
        {
            log::warn("http: {} {} failed: {}", request.method, request.path, error.what());
            return errorReply(500, fmt::format("the request failed inside the service: {}", error.what()));
        }
    }

    HttpReply HttpRoutes::answerResource(HttpRequest const& request) const
    {
        auto const found = _resources.find(request.path);
        if (found == _resources.end())
        {
            return errorReply(404, fmt::format("no resource {}", request.path));
        }
        if (request.method != "GET" && request.method != "HEAD")
        {
            return errorReply(405, fmt::format("{} {}: only GET and HEAD here", request.method, request.path));
        }
        auto const body = found->second.body();
        if (!body)
        {
            return errorReply(503, fmt::format("{} is not available yet", request.path));
        }
        return {200, found->second.contentType, *body};
    }
}
