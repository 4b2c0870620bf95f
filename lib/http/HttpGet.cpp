#include "HttpGet.hpp"

#include <common/UniqueFd.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mxl
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        struct Url
        {
            std::string host;
            std::string port;
            std::string path;
        };

        std::optional<Url> parseUrl(std::string const& url)
        {
            constexpr std::string_view scheme = "http://";
            if (!url.starts_with(scheme))
            {
                return std::nullopt;
            }
            auto const rest = url.substr(scheme.size());
            auto const slash = rest.find('/');
            auto const authority = rest.substr(0, slash);
            Url parsed{authority, "80", slash == std::string::npos ? "/" : rest.substr(slash)};
            if (!authority.empty() && authority.front() == '[')
            {
                auto const close = authority.find(']');
                if (close == std::string::npos)
                {
                    return std::nullopt;
                }
                parsed.host = authority.substr(1, close - 1);
                if (close + 1 < authority.size() && authority[close + 1] == ':')
                {
                    parsed.port = authority.substr(close + 2);
                }
            }
            else if (auto const colon = authority.rfind(':'); colon != std::string::npos)
            {
                parsed.host = authority.substr(0, colon);
                parsed.port = authority.substr(colon + 1);
            }
            if (parsed.host.empty())
            {
                return std::nullopt;
            }
            return parsed;
        }

        int remainingMs(Clock::time_point deadline)
        {
            auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            return static_cast<int>(std::max<long long>(left, 0));
        }

        // Waits for `events` on `fd`; false at the deadline.
        bool await(int fd, short events, Clock::time_point deadline)
        {
            pollfd pfd{fd, events, 0};
            while (true)
            {
                auto const ready = ::poll(&pfd, 1, remainingMs(deadline));
                if (ready > 0)
                {
                    return true;
                }
                if (ready == 0 || errno != EINTR)
                {
                    return false;
                }
            }
        }
    }

    std::variant<std::string, HttpFailure> httpGet(std::string const& url, std::chrono::milliseconds timeout)
    {
        auto const deadline = Clock::now() + timeout;
        auto const parsed = parseUrl(url);
        if (!parsed)
        {
            return HttpFailure{"not an http://host[:port]/path URL"};
        }
        addrinfo hints{};
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* addresses = nullptr;
        if (auto const error = ::getaddrinfo(parsed->host.c_str(), parsed->port.c_str(), &hints, &addresses); error != 0)
        {
            return HttpFailure{fmt::format("cannot resolve '{}': {}", parsed->host, ::gai_strerror(error))};
        }
        UniqueFd socket{::socket(addresses->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
        auto const connected = ::connect(socket.get(), addresses->ai_addr, addresses->ai_addrlen);
        ::freeaddrinfo(addresses);
        if (socket.get() < 0 || (connected != 0 && errno != EINPROGRESS))
        {
            return HttpFailure{fmt::format("cannot connect: {}", std::strerror(errno))};
        }
        if (!await(socket.get(), POLLOUT, deadline))
        {
            return HttpFailure{fmt::format("no connection within {} ms", timeout.count())};
        }
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(socket.get(), SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0)
        {
            return HttpFailure{fmt::format("cannot connect: {}", std::strerror(error))};
        }

        auto const request = fmt::format("GET {} HTTP/1.0\r\nHost: {}\r\nConnection: close\r\n\r\n", parsed->path, parsed->host);
        std::size_t sent = 0;
        while (sent < request.size())
        {
            auto const n = ::send(socket.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
            if (n < 0 && errno != EAGAIN && errno != EINTR)
            {
                return HttpFailure{fmt::format("cannot send the request: {}", std::strerror(errno))};
            }
            if (n < 0 && !await(socket.get(), POLLOUT, deadline))
            {
                return HttpFailure{"request timed out"};
            }
            sent += n > 0 ? static_cast<std::size_t>(n) : 0;
        }

        std::string response;
        char chunk[4096];
        while (true)
        {
            if (!await(socket.get(), POLLIN, deadline))
            {
                return HttpFailure{fmt::format("no complete response within {} ms", timeout.count())};
            }
            auto const n = ::recv(socket.get(), chunk, sizeof chunk, 0);
            if (n == 0)
            {
                break;
            }
            if (n < 0 && errno != EAGAIN && errno != EINTR)
            {
                return HttpFailure{fmt::format("cannot read the response: {}", std::strerror(errno))};
            }
            response.append(chunk, n > 0 ? static_cast<std::size_t>(n) : 0);
        }
        auto const headerEnd = response.find("\r\n\r\n");
        auto const statusLine = response.substr(0, response.find("\r\n"));
        if (headerEnd == std::string::npos || !statusLine.starts_with("HTTP/"))
        {
            return HttpFailure{"the response is not HTTP"};
        }
        if (statusLine.find(" 200") == std::string::npos)
        {
            return HttpFailure{fmt::format("the server answered '{}'", statusLine)};
        }
        return response.substr(headerEnd + 4);
    }
}
