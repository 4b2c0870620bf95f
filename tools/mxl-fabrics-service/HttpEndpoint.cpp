#include "HttpEndpoint.hpp"

#include <fmt/format.h>
#include <microhttpd.h>

#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>

namespace mxl::service
{
    namespace
    {
        // A PATCH body larger than this is no Connection API request.
        constexpr std::size_t maxBodyBytes = 64 * 1024;

        // What one connection has uploaded so far; libmicrohttpd hands the body over in pieces.
        struct Upload
        {
            std::string body;
            bool tooLarge = false;
        };
    }

    struct HttpDispatch
    {
        static MHD_Result answer(void* context, MHD_Connection* connection, char const* url, char const* method, char const*,
                                 char const* uploadData, std::size_t* uploadSize, void** connectionState)
        {
            auto const& endpoint = *static_cast<HttpEndpoint const*>(context);
            auto const* handler = handlerOf(endpoint, url);
            if (handler == nullptr)
            {
                return answerResource(endpoint, connection, url, method);
            }
            // The first call only announces the request; the body follows in calls with data, and a call without ends it.
            if (*connectionState == nullptr)
            {
                *connectionState = new Upload{};
                return MHD_YES;
            }
            auto& upload = *static_cast<Upload*>(*connectionState);
            if (*uploadSize != 0)
            {
                upload.tooLarge = upload.tooLarge || upload.body.size() + *uploadSize > maxBodyBytes;
                if (!upload.tooLarge)
                {
                    upload.body.append(uploadData, *uploadSize);
                }
                *uploadSize = 0;
                return MHD_YES;
            }
            if (upload.tooLarge)
            {
                return reply(connection, MHD_HTTP_CONTENT_TOO_LARGE, "text/plain",
                             fmt::format("the body of {} {} is larger than {} bytes\n", method, url, maxBodyBytes));
            }
            auto const answer = (*handler)(HttpRequest{method, url, std::move(upload.body)});
            return reply(connection, answer.status, answer.contentType, answer.body);
        }

        static void completed(void*, MHD_Connection*, void** connectionState, MHD_RequestTerminationCode)
        {
            delete static_cast<Upload*>(*connectionState);
            *connectionState = nullptr;
        }

        static HttpHandler const* handlerOf(HttpEndpoint const& endpoint, std::string_view url)
        {
            for (auto const& [prefix, handler] : endpoint._prefixHandlers)
            {
                if (url.starts_with(prefix))
                {
                    return &handler;
                }
            }
            return nullptr;
        }

        static MHD_Result answerResource(HttpEndpoint const& endpoint, MHD_Connection* connection, char const* url, char const* method)
        {
            if (std::strcmp(method, "GET") != 0 && std::strcmp(method, "HEAD") != 0)
            {
                return reply(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "only GET and HEAD\n");
            }
            auto const found = endpoint._resources.find(url);
            if (found == endpoint._resources.end())
            {
                return reply(connection, MHD_HTTP_NOT_FOUND, "text/plain", fmt::format("no resource {}\n", url));
            }
            auto const body = found->second.body();
            if (!body)
            {
                return reply(connection, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", fmt::format("{} is not available yet\n", url));
            }
            return reply(connection, MHD_HTTP_OK, found->second.contentType, *body);
        }

        static MHD_Result reply(MHD_Connection* connection, unsigned status, std::string const& contentType, std::string const& body)
        {
            auto* response = ::MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
            ::MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, contentType.c_str());
            ::MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
            auto const result = ::MHD_queue_response(connection, status, response);
            ::MHD_destroy_response(response);
            return result;
        }
    };

    HttpEndpoint::HttpEndpoint(HttpListen const& listen, std::string const& origin, std::map<std::string, HttpResource> resources,
                               std::map<std::string, HttpHandler> prefixHandlers)
        : _resources{std::move(resources)}
        , _prefixHandlers{std::move(prefixHandlers)}
    {
        sockaddr_storage address{};
        auto const value = fmt::format("{}:{}", listen.host, listen.port);
        unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
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
            throw ConfigError{
                fmt::format("{}: key 'http_listen' value '{}': the host must be a numeric IPv4 or IPv6 address", origin, value)};
        }
        _daemon = ::MHD_start_daemon(flags, listen.port, nullptr, nullptr, &HttpDispatch::answer, this, MHD_OPTION_SOCK_ADDR, &address,
                                     MHD_OPTION_CONNECTION_TIMEOUT, 5U, MHD_OPTION_NOTIFY_COMPLETED, &HttpDispatch::completed, nullptr,
                                     MHD_OPTION_END);
        if (_daemon == nullptr)
        {
            throw ConfigError{
                fmt::format("{}: key 'http_listen' value '{}': cannot listen there (address in use or not on this host)", origin, value)};
        }
        auto const* info = ::MHD_get_daemon_info(_daemon, MHD_DAEMON_INFO_BIND_PORT);
        _port = info != nullptr ? info->port : listen.port;
    }

    HttpEndpoint::~HttpEndpoint()
    {
        ::MHD_stop_daemon(_daemon);
    }
}
