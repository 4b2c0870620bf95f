// A small read-only HTTP server (libmicrohttpd, its own thread): each path maps to a function producing the body, or
// nullopt for 404 (a target's /ticket before the ticket exists). Only GET and HEAD are answered.
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

    class HttpEndpoint
    {
    public:
        // Throws ConfigError naming http_listen when the address cannot be bound.
        HttpEndpoint(HttpListen const& listen, std::string const& origin, std::map<std::string, HttpResource> resources);
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
        MHD_Daemon* _daemon = nullptr;
        std::uint16_t _port = 0;

        friend struct HttpDispatch;
    };
}
