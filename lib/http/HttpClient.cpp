#include "HttpClient.hpp"

#include "HostResolver.hpp"
#include "HttpsTrust.hpp"

#include <common/PrintableText.hpp>
#include <common/UniqueFd.hpp>

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <mutex>
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
            bool secure = false;

            // The Host header (RFC 9110, 7.2): the port unless it is the scheme's, an IPv6 address in brackets.
            [[nodiscard]] std::string hostHeader() const
            {
                auto const name = host.find(':') == std::string::npos ? host : "[" + host + "]";
                return port == (secure ? "443" : "80") ? name : name + ":" + port;
            }
        };

        // A URL with a space or a control byte in it would write a request line and headers of the URL's choosing.
        bool holdsSpaceOrControl(std::string_view url) noexcept
        {
            return std::any_of(url.begin(), url.end(),
                               [](char byte)
                               { return static_cast<unsigned char>(byte) <= 0x20 || static_cast<unsigned char>(byte) == 0x7f; });
        }

        // Schemes are case-insensitive (RFC 3986 section 3.1): "HTTP://" is "http://".
        bool hasScheme(std::string_view url, std::string_view scheme) noexcept
        {
            return url.size() >= scheme.size() &&
                   std::equal(scheme.begin(), scheme.end(), url.begin(),
                              [](char lower, char given) { return lower == std::tolower(static_cast<unsigned char>(given)); });
        }

        std::optional<Url> parseUrl(std::string const& url)
        {
            auto const secure = hasScheme(url, "https://");
            if (!secure && !hasScheme(url, "http://"))
            {
                return std::nullopt;
            }
            auto const rest = url.substr(secure ? 8 : 7);
            auto const slash = rest.find('/');
            auto const authority = rest.substr(0, slash);
            Url parsed{authority, secure ? "443" : "80", slash == std::string::npos ? "/" : rest.substr(slash), secure};
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

        // The connected socket, with a TLS session over it for https://: bytes in and out within the deadline.
        class Channel
        {
        public:
            Channel(int socket, Clock::time_point deadline, std::chrono::milliseconds timeout)
                : _socket{socket}
                , _deadline{deadline}
                , _timeout{timeout}
            {
            }

            // Verifies the server as HttpsTrust says; why not, or nullopt.
            std::optional<std::string> startTls(std::string const& host)
            {
                _tls.reset(::SSL_new(httpsContext().get()));
                if (!_tls)
                {
                    return "cannot start TLS: " + openSslError("the connection was closed");
                }
                ::SSL_set_fd(_tls.get(), _socket);
                in6_addr address{};
                auto const numeric =
                    ::inet_pton(AF_INET, host.c_str(), &address) == 1 || ::inet_pton(AF_INET6, host.c_str(), &address) == 1;
                if (numeric)
                {
                    ::X509_VERIFY_PARAM_set1_ip_asc(::SSL_get0_param(_tls.get()), host.c_str());
                }
                else
                {
                    ::SSL_set_tlsext_host_name(_tls.get(), host.c_str());
                    ::SSL_set1_host(_tls.get(), host.c_str());
                }
                while (true)
                {
                    auto const result = ::SSL_connect(_tls.get());
                    if (result == 1)
                    {
                        return std::nullopt;
                    }
                    if (auto const waited = awaitTls(result); !waited.empty())
                    {
                        if (auto const verified = ::SSL_get_verify_result(_tls.get()); verified != X509_V_OK)
                        {
                            return fmt::format("the server's certificate is not trusted: {}", ::X509_verify_cert_error_string(verified));
                        }
                        return "TLS handshake failed: " + waited;
                    }
                }
            }

            std::optional<std::string> sendAll(std::string const& bytes)
            {
                std::size_t sent = 0;
                while (sent < bytes.size())
                {
                    if (_tls)
                    {
                        std::size_t n = 0;
                        auto const result = ::SSL_write_ex(_tls.get(), bytes.data() + sent, bytes.size() - sent, &n);
                        if (result != 1)
                        {
                            if (auto const waited = awaitTls(result); !waited.empty())
                            {
                                return "cannot send the request: " + waited;
                            }
                        }
                        sent += n;
                        continue;
                    }
                    auto const n = ::send(_socket, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
                    if (n < 0 && errno != EAGAIN && errno != EINTR)
                    {
                        return fmt::format("cannot send the request: {}", std::strerror(errno));
                    }
                    if (n < 0 && !await(_socket, POLLOUT, _deadline))
                    {
                        return fmt::format("the request was not sent within {} ms", _timeout.count());
                    }
                    sent += n > 0 ? static_cast<std::size_t>(n) : 0;
                }
                return std::nullopt;
            }

            // Bytes read into `buffer` (0 where the server closed), or why none.
            std::variant<std::size_t, std::string> receive(char* buffer, std::size_t size)
            {
                while (true)
                {
                    if (_tls)
                    {
                        std::size_t n = 0;
                        auto const result = ::SSL_read_ex(_tls.get(), buffer, size, &n);
                        if (result == 1)
                        {
                            return n;
                        }
                        if (::SSL_get_error(_tls.get(), result) == SSL_ERROR_ZERO_RETURN)
                        {
                            return std::size_t{0};
                        }
                        if (auto const waited = awaitTls(result); !waited.empty())
                        {
                            return "cannot read the answer: " + waited;
                        }
                        continue;
                    }
                    if (!await(_socket, POLLIN, _deadline))
                    {
                        return fmt::format("no complete answer within {} ms", _timeout.count());
                    }
                    auto const n = ::recv(_socket, buffer, size, 0);
                    if (n < 0 && errno != EAGAIN && errno != EINTR)
                    {
                        return fmt::format("cannot read the answer: {}", std::strerror(errno));
                    }
                    if (n >= 0)
                    {
                        return static_cast<std::size_t>(n);
                    }
                }
            }

        private:
            int _socket;
            Clock::time_point _deadline;
            std::chrono::milliseconds _timeout;
            std::unique_ptr<SSL, decltype(&::SSL_free)> _tls{nullptr, &::SSL_free};

            // After an OpenSSL call that did not complete: "" once the socket is ready for it to be called again, else why
            // the exchange ends.
            std::string awaitTls(int result)
            {
                auto const error = ::SSL_get_error(_tls.get(), result);
                if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE)
                {
                    return error == SSL_ERROR_SYSCALL && errno != 0 ? std::string{std::strerror(errno)}
                                                                    : openSslError("the connection was closed");
                }
                if (!await(_socket, error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, _deadline))
                {
                    return fmt::format("no complete answer within {} ms", _timeout.count());
                }
                return {};
            }
        };

        // The Content-Length of an answer's head, where it has one.
        std::optional<std::size_t> contentLength(std::string_view head)
        {
            std::string lower{head};
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            auto const at = lower.find("\r\ncontent-length:");
            if (at == std::string::npos)
            {
                return std::nullopt;
            }
            auto begin = head.data() + at + 17;
            auto const end = head.data() + head.find("\r\n", at + 2);
            while (begin < end && (*begin == ' ' || *begin == '\t'))
            {
                ++begin;
            }
            std::size_t length = 0;
            if (std::from_chars(begin, end, length).ec != std::errc{})
            {
                return std::nullopt;
            }
            return length;
        }
    }

    bool isHttpUrl(std::string_view url) noexcept
    {
        return (hasScheme(url, "http://") || hasScheme(url, "https://")) && !holdsSpaceOrControl(url);
    }

    bool isHttpsUrl(std::string_view url) noexcept
    {
        return hasScheme(url, "https://");
    }

    std::string lowercaseScheme(std::string url)
    {
        auto const end = url.find("://");
        std::transform(url.begin(), url.begin() + static_cast<std::ptrdiff_t>(end == std::string::npos ? 0 : end), url.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return url;
    }

    namespace
    {
        std::mutex authorizationMutex;
        BearerTokenSource bearerTokens;

        // Set while this thread asks the source: the requests it makes to get a token (metadata, keys) go without one.
        thread_local bool askingForToken = false;

        std::string bearerFor(std::string const& url)
        {
            BearerTokenSource source;
            {
                std::lock_guard const lock{authorizationMutex};
                source = bearerTokens;
            }
            if (!source || askingForToken || !isHttpsUrl(url))
            {
                return {};
            }
            struct Asking
            {
                Asking()
                {
                    askingForToken = true;
                }
                ~Asking()
                {
                    askingForToken = false;
                }
                Asking(Asking const&) = delete;
                Asking& operator=(Asking const&) = delete;
            } const asking;
            return source(url);
        }

        std::variant<HttpAnswer, HttpFailure> exchange(std::string const& method, std::string const& url, std::string const& body,
                                                       std::string const& contentType, std::string const& authorization,
                                                       std::chrono::milliseconds timeout, std::size_t maxAnswerBytes);
    }

    void setBearerTokenSource(BearerTokenSource source)
    {
        std::lock_guard const lock{authorizationMutex};
        bearerTokens = std::move(source);
    }

    std::variant<HttpAnswer, HttpFailure> httpExchange(std::string const& method, std::string const& url, std::string const& jsonBody,
                                                       std::chrono::milliseconds timeout, std::size_t maxAnswerBytes)
    {
        auto const token = bearerFor(url);
        return exchange(method, url, jsonBody, jsonBody.empty() ? std::string{} : "application/json",
                        token.empty() ? "" : "Bearer " + token, timeout, maxAnswerBytes);
    }

    std::variant<HttpAnswer, HttpFailure> httpExchangeAuthorized(std::string const& method, std::string const& url,
                                                                 std::string const& jsonBody, std::string const& authorization,
                                                                 std::chrono::milliseconds timeout, std::size_t maxAnswerBytes)
    {
        return exchange(method, url, jsonBody, jsonBody.empty() ? std::string{} : "application/json", authorization, timeout,
                        maxAnswerBytes);
    }

    std::variant<HttpAnswer, HttpFailure> httpPostForm(std::string const& url, std::string const& form, std::string const& authorization,
                                                       std::chrono::milliseconds timeout)
    {
        return exchange("POST", url, form, "application/x-www-form-urlencoded", authorization, timeout, defaultMaxAnswerBytes);
    }

    namespace
    {
        // A connected socket to the first of the host's addresses that takes the connection, in the resolver's order: a
        // name such as localhost may resolve to ::1 first while the server listens on 127.0.0.1 only. Each address has its
        // share of the time left (a quarter of a second at least), so one that drops the attempt silently does not hide
        // the next.
        std::variant<UniqueFd, HttpFailure> connectToHost(Url const& url, Clock::time_point deadline, std::chrono::milliseconds timeout)
        {
            auto resolved = resolveHost(url.host, url.port, deadline);
            if (auto const* problem = std::get_if<std::string>(&resolved))
            {
                return HttpFailure{*problem};
            }
            auto const* addresses = std::get<AddressList>(resolved).get();
            int lastError = 0;
            std::size_t left = 0;
            for (auto const* address = addresses; address != nullptr; address = address->ai_next)
            {
                ++left;
            }
            for (auto const* address = addresses; address != nullptr; address = address->ai_next, --left)
            {
                auto const share =
                    std::max<Clock::duration>((deadline - Clock::now()) / static_cast<int>(left), std::chrono::milliseconds{250});
                auto const attemptEnds = std::min(deadline, Clock::now() + share);
                UniqueFd socket{::socket(address->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
                if (socket.get() < 0 || (::connect(socket.get(), address->ai_addr, address->ai_addrlen) != 0 && errno != EINPROGRESS))
                {
                    lastError = errno;
                    continue;
                }
                if (!await(socket.get(), POLLOUT, attemptEnds))
                {
                    if (left == 1 || Clock::now() >= deadline)
                    {
                        return HttpFailure{fmt::format("no connection within {} ms", timeout.count())};
                    }
                    lastError = ETIMEDOUT;
                    continue;
                }
                int error = 0;
                socklen_t length = sizeof error;
                ::getsockopt(socket.get(), SOL_SOCKET, SO_ERROR, &error, &length);
                if (error == 0)
                {
                    return socket;
                }
                lastError = error;
            }
            return HttpFailure{fmt::format("cannot connect: {}", std::strerror(lastError))};
        }

        std::variant<HttpAnswer, HttpFailure> exchange(std::string const& method, std::string const& url, std::string const& body,
                                                       std::string const& contentType, std::string const& authorization,
                                                       std::chrono::milliseconds timeout, std::size_t maxAnswerBytes)
        {
            auto const deadline = Clock::now() + timeout;
            if (holdsSpaceOrControl(url))
            {
                return HttpFailure{fmt::format("the URL {} holds a space or a control byte", printableText(url, quotedAnswerChars))};
            }
            auto const parsed = parseUrl(url);
            if (!parsed)
            {
                return HttpFailure{"not an http:// or https://host[:port]/path URL"};
            }
            auto connected = connectToHost(*parsed, deadline, timeout);
            if (auto const* failure = std::get_if<HttpFailure>(&connected))
            {
                return *failure;
            }
            auto const socket = std::get<UniqueFd>(std::move(connected));

            Channel channel{socket.get(), deadline, timeout};
            if (parsed->secure)
            {
                if (auto const problem = channel.startTls(parsed->host))
                {
                    return HttpFailure{*problem};
                }
            }

            // HTTP/1.0 and a closed connection: the answer is never chunked, and it ends where the server closes.
            auto request = fmt::format("{} {} HTTP/1.0\r\nHost: {}\r\nConnection: close\r\n", method, parsed->path, parsed->hostHeader());
            if (!authorization.empty())
            {
                request += fmt::format("Authorization: {}\r\n", authorization);
            }
            if (!body.empty())
            {
                request += fmt::format("Content-Type: {}\r\nContent-Length: {}\r\n", contentType, body.size());
            }
            else if (method == "POST" || method == "PATCH" || method == "PUT")
            {
                request += "Content-Length: 0\r\n";
            }
            request += "\r\n";
            request += body;
            if (auto const problem = channel.sendAll(request))
            {
                return HttpFailure{*problem};
            }

            // The head of an answer is bounded too: a server that sends endless headers is cut off like one that sends an
            // endless body.
            constexpr std::size_t maxHeadBytes = 64 * 1024;
            std::string response;
            char chunk[4096];
            while (true)
            {
                auto const received = channel.receive(chunk, sizeof chunk);
                if (auto const* problem = std::get_if<std::string>(&received))
                {
                    return HttpFailure{*problem};
                }
                auto const n = std::get<std::size_t>(received);
                if (n == 0)
                {
                    break;
                }
                response.append(chunk, n);
                if (response.size() > maxHeadBytes + maxAnswerBytes)
                {
                    return HttpFailure{fmt::format("the answer is larger than {} bytes", maxAnswerBytes)};
                }
            }
            if (response.empty())
            {
                return HttpFailure{"the server closed the connection without an answer"};
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
            auto answerBody = response.substr(headerEnd + 4);
            // A connection cut short (TLS or not) shows as a body shorter than the server announced.
            if (auto const announced = contentLength(std::string_view{response}.substr(0, headerEnd + 2));
                announced && *announced != answerBody.size())
            {
                return HttpFailure{fmt::format("the answer ended after {} of the {} bytes announced", answerBody.size(), *announced)};
            }
            return HttpAnswer{status, std::move(answerBody)};
        }
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
        return fmt::format("{} {}{} answered {}: {}", method, origin, path, answer.status, printableText(answer.body, quotedAnswerChars));
    }
}
