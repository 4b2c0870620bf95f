// Which function answers an HTTP request: a static resource by its path (GET and HEAD only; its function gives the
// body, or nullopt for 503, as a target's /ticket before the ticket exists), a handler by a path prefix (the NMOS
// Connection API answers every method below it itself), and OPTIONS on every path. No sockets: HttpEndpoint serves it,
// and tests and the fuzzer drive it directly.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mxl
{
    struct HttpResource
    {
        std::string contentType;
        std::function<std::optional<std::string>()> body;
    };

    struct HttpReply
    {
        unsigned status = 200;
        std::string contentType;
        std::string body;
        // More response headers, e.g. WWW-Authenticate.
        std::vector<std::pair<std::string, std::string>> headers = {};
    };

    struct HttpRequest
    {
        std::string method;
        std::string path;
        std::string body;
        // The Authorization header, "" where there is none.
        std::string authorization = {};
    };

    // Looks at a request before any route does: nullopt lets it through, a reply refuses it (authorization).
    using HttpGate = std::function<std::optional<HttpReply>(HttpRequest const&)>;

    using HttpHandler = std::function<HttpReply(HttpRequest const&)>;

    // The NMOS error document ({code, error, debug}) for `status`, as the body of a reply.
    [[nodiscard]] HttpReply errorReply(unsigned status, std::string const& error);

    class HttpRoutes
    {
    public:
        HttpRoutes(std::map<std::string, HttpResource> resources, std::map<std::string, HttpHandler> prefixHandlers);

        // Every request gets an answer: unknown paths 404, wrong methods 405, and an exception from a handler 500, each
        // an NMOS error document.
        [[nodiscard]] HttpReply answer(HttpRequest const& request) const;

    private:
        std::map<std::string, HttpResource> _resources;
        std::map<std::string, HttpHandler> _prefixHandlers;

        [[nodiscard]] HttpReply answerResource(HttpRequest const& request) const;
    };
}
