// A small HTTP server (libmicrohttpd, its own thread) over HttpRoutes, serving HTTPS (TLS 1.2 and 1.3 only, as
// AMWA BCP-003-01 asks) where the listen address names certificate files, plain HTTP where it names none.
//
// Whatever a client sends is answered and never ends the process: malformed requests (HttpRequestCheck, and no Host in
// HTTP/1.1 through libmicrohttpd's strict parsing) get 400 as an NMOS error document before any route sees them. Every
// response allows any origin (CORS); OPTIONS is answered with what a browser's preflight asks. The limits (HttpLimits)
// bound what one client can hold.
#pragma once

#include "HttpRoutes.hpp"
#include "ListenAddress.hpp"
#include "TlsCredentials.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

struct MHD_Daemon;

namespace mxl
{
    // docs/operations.md lists them; a client past one is answered 413, 414 or 431, or not served until another leaves.
    struct HttpLimits
    {
        // One polling thread holds them all, so they cost little: enough that slow clients from a few addresses, each at
        // most connectionsPerAddress, leave room for a controller (within the default limit of 1024 open files).
        static constexpr unsigned connections = 512;
        static constexpr unsigned connectionsPerAddress = 32;
        // The request line and headers of one request, with libmicrohttpd's read buffer.
        static constexpr std::size_t requestHeadBytes = 32 * 1024;
        static constexpr std::size_t bodyBytes = 64 * 1024;
        // A connection that sends nothing for this long is closed (slow clients).
        static constexpr std::chrono::seconds idle{5};
    };

    // Why an endpoint cannot listen where it was asked to: what() says why, for a message that names the setting.
    class ListenError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    class HttpEndpoint
    {
    public:
        // Throws ListenError when the address cannot be bound, TlsFilesError when its certificate files cannot be used.
        // `gate` sees each well-formed request first, before its body is read.
        HttpEndpoint(ListenAddress const& listen, std::map<std::string, HttpResource> resources,
                     std::map<std::string, HttpHandler> prefixHandlers = {}, HttpGate gate = {});
        ~HttpEndpoint();

        HttpEndpoint(HttpEndpoint const&) = delete;
        HttpEndpoint& operator=(HttpEndpoint const&) = delete;

        // The port actually bound (the configured one, or the one the kernel chose for 0).
        [[nodiscard]] std::uint16_t port() const noexcept
        {
            return _port;
        }

        // Whether it serves HTTPS.
        [[nodiscard]] bool secure() const noexcept
        {
            return _tls != nullptr;
        }

        // HTTPS: reads the certificate files again for the connections from now on (TlsCredentials::reload); "" when
        // plain, else the description of the certificate in use.
        std::string reloadTls();
        [[nodiscard]] std::string tlsDescription() const;

    private:
        HttpRoutes _routes;
        HttpGate _gate;
        std::unique_ptr<TlsCredentials> _tls;
        MHD_Daemon* _daemon = nullptr;
        std::uint16_t _port = 0;

        friend struct HttpDispatch;
    };
}
