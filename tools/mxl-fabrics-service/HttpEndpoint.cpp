#include "HttpEndpoint.hpp"

#include <fmt/format.h>
#include <microhttpd.h>

#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>

namespace mxl::service
{
    struct HttpDispatch
    {
        static MHD_Result answer(void* context, MHD_Connection* connection, char const* url, char const* method, char const*, char const*,
                                 std::size_t*, void**)
        {
            auto const& endpoint = *static_cast<HttpEndpoint const*>(context);
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

    HttpEndpoint::HttpEndpoint(HttpListen const& listen, std::string const& origin, std::map<std::string, HttpResource> resources)
        : _resources{std::move(resources)}
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
                                     MHD_OPTION_CONNECTION_TIMEOUT, 5U, MHD_OPTION_END);
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
