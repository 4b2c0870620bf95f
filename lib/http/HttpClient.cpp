#include "HttpClient.hpp"

#include <common/UniqueFd.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
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

    std::variant<HttpAnswer, HttpFailure> httpExchange(std::string const& method, std::string const& url, std::string const& jsonBody,
                                                       std::chrono::milliseconds timeout, std::size_t maxAnswerBytes)
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

        // HTTP/1.0 and a closed connection: the answer is never chunked, and it ends where the server closes.
        auto request = fmt::format("{} {} HTTP/1.0\r\nHost: {}\r\nConnection: close\r\n", method, parsed->path, parsed->host);
        if (!jsonBody.empty())
        {
            request += fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", jsonBody.size());
        }
        else if (method == "POST" || method == "PATCH" || method == "PUT")
        {
            request += "Content-Length: 0\r\n";
        }
        request += "\r\n";
        request += jsonBody;
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
                return HttpFailure{fmt::format("the request was not sent within {} ms", timeout.count())};
            }
            sent += n > 0 ? static_cast<std::size_t>(n) : 0;
        }

        // The head of an answer is bounded too: a server that sends endless headers is cut off like one that sends an
        // endless body.
        constexpr std::size_t maxHeadBytes = 64 * 1024;
        std::string response;
        char chunk[4096];
        while (true)
        {
            if (!await(socket.get(), POLLIN, deadline))
            {
                return HttpFailure{fmt::format("no complete answer within {} ms", timeout.count())};
            }
            auto const n = ::recv(socket.get(), chunk, sizeof chunk, 0);
            if (n == 0)
            {
                break;
            }
            if (n < 0 && errno != EAGAIN && errno != EINTR)
            {
                return HttpFailure{fmt::format("cannot read the answer: {}", std::strerror(errno))};
            }
            response.append(chunk, n > 0 ? static_cast<std::size_t>(n) : 0);
            if (response.size() > maxHeadBytes + maxAnswerBytes)
            {
                return HttpFailure{fmt::format("the answer is larger than {} bytes", maxAnswerBytes)};
            }
        }
        auto const headerEnd = response.find("\r\n\r\n");
        auto const statusLine = response.substr(0, response.find("\r\n"));
        int status = 0;
        auto const space = statusLine.find(' ');
        if (headerEnd == std::string::npos || !statusLine.starts_with("HTTP/") || space == std::string::npos ||
            std::from_chars(statusLine.data() + space + 1, statusLine.data() + statusLine.size(), status).ec != std::errc{} ||
            status < 100 || status > 599)
        {
            return HttpFailure{"the answer is not HTTP"};
        }
        if (response.size() - headerEnd - 4 > maxAnswerBytes)
        {
            return HttpFailure{fmt::format("the answer is larger than {} bytes", maxAnswerBytes)};
        }
        return HttpAnswer{status, response.substr(headerEnd + 4)};
    }

    std::variant<std::string, HttpFailure> httpGet(std::string const& url, std::chrono::milliseconds timeout)
    {
        auto answer = httpExchange("GET", url, {}, timeout);
        if (auto const* failure = std::get_if<HttpFailure>(&answer))
        {
            return *failure;
        }
        auto& got = std::get<HttpAnswer>(answer);
        if (got.status != 200)
        {
            return HttpFailure{fmt::format("the server answered {}", got.status)};
        }
        return std::move(got.body);
    }

    std::variant<HttpAnswer, std::string> httpRequest(std::string const& origin, std::string const& method, std::string const& path,
                                                      std::string const& jsonBody, std::chrono::milliseconds timeout)
    {
        auto answer = httpExchange(method, origin + path, jsonBody, timeout);
        if (auto const* failure = std::get_if<HttpFailure>(&answer))
        {
            return fmt::format("{} {}{} failed: {}", method, origin, path, failure->reason);
        }
        return std::get<HttpAnswer>(std::move(answer));
    }

    std::string describeAnswer(std::string const& origin, std::string const& method, std::string const& path, HttpAnswer const& answer)
    {
        return fmt::format("{} {}{} answered {}: {}", method, origin, path, answer.status, answer.body);
    }
}
