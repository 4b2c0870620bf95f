#include "HttpEndpoint.hpp"

#include "HttpRequestCheck.hpp"
#include <common/Log.hpp>

#include <fmt/format.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include <arpa/inet.h>
#include <charconv>
#include <cstring>
#include <memory>
#include <netinet/in.h>
#include <vector>

namespace mxl
{
    namespace
    {
        // One request, from its request line (the URI callback) to its completion.
        struct Exchange
        {
            // The request target as the client sent it, before libmicrohttpd decodes it in place (where %00 would cut it).
            std::string rawTarget;
            std::string body;
            std::string authorization;
            bool started = false;
            bool tooLarge = false;
        };

        MHD_Result checkHeader(void* check, MHD_ValueKind, char const* key, std::size_t keySize, char const* value,
                               std::size_t valueSize) noexcept
        {
            try
            {
                return static_cast<HeaderCheck*>(check)->take({key, keySize},
                                                              {value == nullptr ? "" : value, value == nullptr ? 0 : valueSize})
                           ? MHD_YES
                           : MHD_NO;
            }
            catch (...)
            {
                return MHD_NO;
            }
        }

        // Why the request is refused before any handler sees it, or "" when it is well formed.
        std::string requestProblem(MHD_Connection* connection, Exchange const& exchange)
        {
            if (auto problem = requestTargetProblem(exchange.rawTarget); !problem.empty())
            {
                return problem;
            }
            HeaderCheck check;
            ::MHD_get_connection_values_n(connection, MHD_HEADER_KIND, &checkHeader, &check);
            return check.problem();
        }

        // The Content-Length the client announced; 0 when it announced none (libmicrohttpd refuses malformed ones).
        std::uint64_t announcedBodyBytes(MHD_Connection* connection)
        {
            auto const* text = ::MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
            std::uint64_t length = 0;
            if (text == nullptr || std::from_chars(text, text + std::strlen(text), length).ec != std::errc{})
            {
                return 0;
            }
            return length;
        }

        void* openExchange(void*, char const* uri, MHD_Connection*) noexcept
        {
            try
            {
                auto exchange = std::make_unique<Exchange>();
                exchange->rawTarget = uri == nullptr ? "" : uri;
                return exchange.release();
            }
            catch (...)
            {
                return nullptr;
            }
        }

        void closeExchange(void*, MHD_Connection*, void** state, MHD_RequestTerminationCode)
        {
            delete static_cast<Exchange*>(*state);
            *state = nullptr;
        }

        // BCP-003-01: TLS 1.2 and 1.3, nothing older, with GnuTLS's default ciphers of those versions.
        constexpr char const* tlsPriorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";

        // GnuTLS's certificate callback has no context of its own: the connection's socket context (set as it is
        // accepted, before its handshake) carries the endpoint's credentials.
        void noteConnection(void* credentials, MHD_Connection*, void** socketContext, MHD_ConnectionNotificationCode code)
        {
            if (code == MHD_CONNECTION_NOTIFY_STARTED)
            {
                *socketContext = credentials;
            }
        }

        int certificateFor(gnutls_session_t session, gnutls_datum_t const*, int, gnutls_pk_algorithm_t const*, int, gnutls_pcert_st** chain,
                           unsigned* chainLength, gnutls_privkey_t* key)
        {
            auto* connection = static_cast<MHD_Connection*>(::gnutls_session_get_ptr(session));
            auto const* info = connection == nullptr ? nullptr : ::MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
            if (info == nullptr || info->socket_context == nullptr)
            {
                return -1;
            }
            static_cast<TlsCredentials*>(info->socket_context)->select(chain, chainLength, key);
            return 0;
        }

        MHD_OptionItem option(MHD_OPTION name, intptr_t value, void* pointer = nullptr)
        {
            return {name, value, pointer};
        }

        template <typename Function>
        MHD_OptionItem callbackOption(MHD_OPTION name, Function* function, void* context)
        {
            return {name, reinterpret_cast<intptr_t>(function), context};
        }
    }

    struct HttpDispatch
    {
        // libmicrohttpd's callbacks are C: nothing may leave them as an exception (only memory exhaustion could get
        // this far), so such a request is dropped.
        static MHD_Result answer(void* context, MHD_Connection* connection, char const* url, char const* method, char const* version,
                                 char const* uploadData, std::size_t* uploadSize, void** state) noexcept
        {
            try
            {
                return answerRequest(context, connection, url, method, version, uploadData, uploadSize, state);
            }
            catch (...)
            {
                return MHD_NO;
            }
        }

        static MHD_Result answerRequest(void* context, MHD_Connection* connection, char const* url, char const* method, char const*,
                                        char const* uploadData, std::size_t* uploadSize, void** state)
        {
            if (*state == nullptr)
            {
                *state = openExchange(nullptr, url, connection);
                if (*state == nullptr)
                {
                    return MHD_NO;
                }
            }
            auto& exchange = *static_cast<Exchange*>(*state);
            // The first call announces the request; the body follows in calls with data, and a call without ends it.
            if (!exchange.started)
            {
                exchange.started = true;
                if (auto const problem = requestProblem(connection, exchange); !problem.empty())
                {
                    log::debug("http: refused a malformed request: {}", problem);
                    return reply(connection, errorReply(MHD_HTTP_BAD_REQUEST, problem));
                }
                auto const& endpoint = *static_cast<HttpEndpoint const*>(context);
                auto const* authorization = ::MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
                exchange.authorization = authorization == nullptr ? "" : authorization;
                if (endpoint._gate)
                {
                    if (auto refusal = endpoint._gate({method, url, {}, exchange.authorization}))
                    {
                        return reply(connection, *refusal);
                    }
                }
                // Refused before "100 Continue" invites a body that would only be thrown away.
                if (announcedBodyBytes(connection) > HttpLimits::bodyBytes)
                {
                    return reply(connection, errorReply(MHD_HTTP_CONTENT_TOO_LARGE,
                                                        fmt::format("the body is larger than {} bytes", HttpLimits::bodyBytes)));
                }
                return MHD_YES;
            }
            if (*uploadSize != 0)
            {
                exchange.tooLarge = exchange.tooLarge || exchange.body.size() + *uploadSize > HttpLimits::bodyBytes;
                if (!exchange.tooLarge)
                {
                    exchange.body.append(uploadData, *uploadSize);
                }
                *uploadSize = 0;
                return MHD_YES;
            }
            if (exchange.tooLarge)
            {
                return reply(connection, errorReply(MHD_HTTP_CONTENT_TOO_LARGE,
                                                    fmt::format("the body is larger than {} bytes", HttpLimits::bodyBytes)));
            }
            HttpRequest request{method, url, std::move(exchange.body), std::move(exchange.authorization)};
            return reply(connection, static_cast<HttpEndpoint const*>(context)->_routes.answer(request), request.method == "OPTIONS");
        }

        static MHD_Result reply(MHD_Connection* connection, HttpReply const& answer, bool preflight = false)
        {
            auto* response =
                ::MHD_create_response_from_buffer(answer.body.size(), const_cast<char*>(answer.body.data()), MHD_RESPMEM_MUST_COPY);
            if (response == nullptr)
            {
                return MHD_NO;
            }
            ::MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, answer.contentType.c_str());
            ::MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
            ::MHD_add_response_header(response, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, "*");
            // BCP-003-01: clients that reached the node over HTTPS keep to it (HSTS, a year).
            if (auto const* tls = ::MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
                tls != nullptr && tls->tls_session != nullptr)
            {
                ::MHD_add_response_header(response, MHD_HTTP_HEADER_STRICT_TRANSPORT_SECURITY, "max-age=31536000");
            }
            for (auto const& [name, value] : answer.headers)
            {
                ::MHD_add_response_header(response, name.c_str(), value.c_str());
            }
            if (preflight)
            {
                ::MHD_add_response_header(response, "Access-Control-Allow-Methods", "GET, PUT, POST, PATCH, HEAD, OPTIONS, DELETE");
                auto const* asked = ::MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Access-Control-Request-Headers");
                ::MHD_add_response_header(response, "Access-Control-Allow-Headers",
                                          asked != nullptr ? asked : "Content-Type, Accept, Authorization");
                ::MHD_add_response_header(response, "Access-Control-Max-Age", "3600");
            }
            auto const result = ::MHD_queue_response(connection, answer.status, response);
            ::MHD_destroy_response(response);
            return result;
        }
    };

    HttpEndpoint::HttpEndpoint(ListenAddress const& listen, std::map<std::string, HttpResource> resources,
                               std::map<std::string, HttpHandler> prefixHandlers, HttpGate gate)
        : _routes{std::move(resources), std::move(prefixHandlers)}
        , _gate{std::move(gate)}
    {
        sockaddr_storage address{};
        unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
        if (auto* v4 = reinterpret_cast<sockaddr_in*>(&address); ::inet_pton(AF_INET, listen.host.c_str(), &v4->sin_addr) == 1)
        {
            v4->sin_family = AF_INET;
            v4->sin_port = htons(listen.port);
        }
        else if (auto* v6 = reinterpret_cast<sockaddr_in6*>(&address); ::inet_pton(AF_INET6, listen.host.c_str(), &v6->sin6_addr) == 1)
        {
            v6->sin6_family = AF_INET6;
            v6->sin6_port = htons(listen.port);
            flags |= MHD_USE_IPv6;
        }
        else
        {
            throw ListenError{"the host must be a numeric IPv4 or IPv6 address"};
        }
        std::vector<MHD_OptionItem> options{
            option(MHD_OPTION_STRICT_FOR_CLIENT, 1),
            option(MHD_OPTION_CONNECTION_LIMIT, HttpLimits::connections),
            option(MHD_OPTION_PER_IP_CONNECTION_LIMIT, HttpLimits::connectionsPerAddress),
            option(MHD_OPTION_CONNECTION_MEMORY_LIMIT, HttpLimits::requestHeadBytes),
            option(MHD_OPTION_CONNECTION_TIMEOUT, HttpLimits::idle.count()),
            callbackOption(MHD_OPTION_URI_LOG_CALLBACK, &openExchange, nullptr),
            callbackOption(MHD_OPTION_NOTIFY_COMPLETED, &closeExchange, nullptr),
        };
        if (listen.tls)
        {
            _tls = std::make_unique<TlsCredentials>(*listen.tls);
            flags |= MHD_USE_TLS;
            options.push_back(option(MHD_OPTION_HTTPS_PRIORITIES, 0, const_cast<char*>(tlsPriorities)));
            options.push_back(option(MHD_OPTION_HTTPS_CERT_CALLBACK, 0, reinterpret_cast<void*>(&certificateFor)));
            options.push_back(callbackOption(MHD_OPTION_NOTIFY_CONNECTION, &noteConnection, _tls.get()));
        }
        options.push_back(option(MHD_OPTION_END, 0));
        _daemon = ::MHD_start_daemon(flags, listen.port, nullptr, nullptr, &HttpDispatch::answer, this, MHD_OPTION_SOCK_ADDR, &address,
                                     MHD_OPTION_ARRAY, options.data(), MHD_OPTION_END);
        if (_daemon == nullptr)
        {
            throw ListenError{"cannot listen there (address in use or not on this host)"};
        }
        auto const* info = ::MHD_get_daemon_info(_daemon, MHD_DAEMON_INFO_BIND_PORT);
        _port = info != nullptr ? info->port : listen.port;
    }

    HttpEndpoint::~HttpEndpoint()
    {
        ::MHD_stop_daemon(_daemon);
    }

    std::string HttpEndpoint::reloadTls()
    {
        if (!_tls)
        {
            return {};
        }
        _tls->reload();
        return _tls->describe();
    }

    std::string HttpEndpoint::tlsDescription() const
    {
        return _tls ? _tls->describe() : std::string{};
    }
}
