// A small HTTP server (libmicrohttpd, its own thread). Each path maps to a function producing the body, or nullopt for
// 503 (a target's /ticket before the ticket exists); those paths answer GET and HEAD only. A handler registered for a
// path prefix (the NMOS Connection API) answers every method below it itself, with the request body (PATCH).
#pragma once

#include "ServiceConfig.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

struct MHD_Daemon;

namespace mxl::service
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
    };

    struct HttpRequest
    {
        std::string method;
        std::string path;
        std::string body;
    };

    using HttpHandler = std::function<HttpReply(HttpRequest const&)>;

    class HttpEndpoint
    {
    public:
        // Throws ConfigError naming http_listen when the address cannot be bound.
        HttpEndpoint(HttpListen const& listen, std::string const& origin, std::map<std::string, HttpResource> resources,
                     std::map<std::string, HttpHandler> prefixHandlers = {});
        ~HttpEndpoint();

        HttpEndpoint(HttpEndpoint const&) = delete;
        HttpEndpoint& operator=(HttpEndpoint const&) = delete;

        // The port actually bound (the configured one, or the one the kernel chose for 0).
        [[nodiscard]] std::uint16_t port() const noexcept
        {
            return _port;
        }

    private:
        std::map<std::string, HttpResource> _resources;
        std::map<std::string, HttpHandler> _prefixHandlers;
        MHD_Daemon* _daemon = nullptr;
        std::uint16_t _port = 0;

        friend struct HttpDispatch;
    };
}
