// The one HTTP client of the tools (lib/http/HttpClient.hpp) against raw servers on loopback: what it sends, what it
// returns, and that no peer holds it past its deadline or fills its memory.
#include <HttpClient.hpp>
#include <common/UniqueFd.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <functional>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace std::chrono_literals;
using mxl::HttpAnswer;
using mxl::HttpFailure;

namespace
{
    // Accepts one connection on 127.0.0.1 and gives it to `serve`, which gets what the client sent up to the end of its
    // head (and the body that came with it).
    class OneShotServer
    {
    public:
        explicit OneShotServer(std::function<void(int fd, std::string const& request)> serve)
            : _listener{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)}
        {
            sockaddr_in address{};
            address.sin_family = AF_INET;
            address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            REQUIRE(::bind(_listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
            REQUIRE(::listen(_listener.get(), 1) == 0);
            socklen_t length = sizeof address;
            ::getsockname(_listener.get(), reinterpret_cast<sockaddr*>(&address), &length);
            _port = ntohs(address.sin_port);
            _thread = std::thread{[this, serve = std::move(serve)]
                                  {
                                      mxl::UniqueFd connection{::accept(_listener.get(), nullptr, nullptr)};
                                      if (connection.get() < 0)
                                      {
                                          return;
                                      }
                                      std::string request;
                                      char chunk[4096];
                                      while (request.find("\r\n\r\n") == std::string::npos)
                                      {
                                          auto const n = ::recv(connection.get(), chunk, sizeof chunk, 0);
                                          if (n <= 0)
                                          {
                                              return;
                                          }
                                          request.append(chunk, static_cast<std::size_t>(n));
                                      }
                                      received = request;
                                      serve(connection.get(), request);
                                  }};
        }

        ~OneShotServer()
        {
            ::shutdown(_listener.get(), SHUT_RDWR);
            _thread.join();
        }

        [[nodiscard]] std::string url(std::string const& path) const
        {
            return fmt::format("http://127.0.0.1:{}{}", _port, path);
        }

        std::string received;

    private:
        mxl::UniqueFd _listener;
        int _port = 0;
        std::thread _thread;
    };

    void sendAll(int fd, std::string const& text)
    {
        std::size_t sent = 0;
        while (sent < text.size())
        {
            auto const n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
            if (n <= 0)
            {
                return;
            }
            sent += static_cast<std::size_t>(n);
        }
    }

    std::string failureOf(std::variant<HttpAnswer, HttpFailure> const& outcome)
    {
        auto const* failure = std::get_if<HttpFailure>(&outcome);
        return failure != nullptr ? failure->reason : std::string{"answered"};
    }
}

TEST_CASE("a POST sends its JSON body with its length and type, and the answer's status and body come back whole")
{
    std::string const body = R"({"type": "node", "data": {"id": "x"}})";
    std::string const answerBody(100000, 'a');
    OneShotServer server{[&](int fd, std::string const&)
                         { sendAll(fd, fmt::format("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n\r\n{}", answerBody)); }};
    auto const outcome = mxl::httpExchange("POST", server.url("/x-nmos/registration/v1.3/resource"), body, 5s);
    REQUIRE(std::holds_alternative<HttpAnswer>(outcome));
    CHECK(std::get<HttpAnswer>(outcome).status == 201);
    CHECK(std::get<HttpAnswer>(outcome).body == answerBody);
    CHECK(server.received.starts_with("POST /x-nmos/registration/v1.3/resource HTTP/1.0\r\n"));
    // The port is part of the Host header where it is not the scheme's.
    CHECK(server.received.find(fmt::format("\r\nHost: {}\r\n", server.url("").substr(7))) != std::string::npos);
    CHECK(server.received.find(fmt::format("Content-Length: {}\r\n", body.size())) != std::string::npos);
    CHECK(server.received.find("Content-Type: application/json\r\n") != std::string::npos);
    CHECK(server.received.ends_with(body));
}

TEST_CASE("a GET answered other than 200 is a failure naming the status, and a DELETE sends no body")
{
    {
        OneShotServer server{[](int fd, std::string const&) { sendAll(fd, "HTTP/1.0 404 Not Found\r\n\r\n{\"code\": 404}"); }};
        auto const outcome = mxl::httpGet(server.url("/ticket"), 5s);
        REQUIRE(std::holds_alternative<HttpFailure>(outcome));
        CHECK(std::get<HttpFailure>(outcome).reason == "the server answered 404");
    }
    OneShotServer server{[](int fd, std::string const&) { sendAll(fd, "HTTP/1.0 204 No Content\r\n\r\n"); }};
    auto const outcome = mxl::httpRequest(server.url(""), "DELETE", "/x-nmos/registration/v1.3/resource/nodes/x", "", 5s);
    REQUIRE(std::holds_alternative<HttpAnswer>(outcome));
    CHECK(std::get<HttpAnswer>(outcome).status == 204);
    CHECK(server.received.find("Content-Length") == std::string::npos);
}

TEST_CASE("a peer that is silent or drips its answer is left at the deadline, not later")
{
    for (bool const drips : {false, true})
    {
        std::atomic<bool> done{false};
        OneShotServer server{[&](int fd, std::string const&)
                             {
                                 // Until the client gave up, then a little more.
                                 for (int i = 0; i < 200 && !done; ++i)
                                 {
                                     if (drips)
                                     {
                                         sendAll(fd, i == 0 ? std::string{"HTTP/1.0 200 OK\r\n\r\n"} : std::string{"x"});
                                     }
                                     std::this_thread::sleep_for(50ms);
                                 }
                             }};
        auto const started = std::chrono::steady_clock::now();
        auto const outcome = mxl::httpExchange("GET", server.url("/"), "", 600ms);
        auto const elapsed = std::chrono::steady_clock::now() - started;
        done = true;
        INFO("drips: ", drips);
        CHECK(failureOf(outcome) == "no complete answer within 600 ms");
        // The deadline holds for the whole exchange; a loaded machine may add a scheduler slice or two.
        CHECK(elapsed < 600ms + 2s);
        // It waited for the peer rather than giving up at once (poll counts whole milliseconds).
        CHECK(elapsed >= 550ms);
    }
}

TEST_CASE("an answer past its size bound, one that is not HTTP and a port nobody listens on are failures saying so")
{
    {
        std::atomic<bool> stop{false};
        OneShotServer server{[&](int fd, std::string const&)
                             {
                                 sendAll(fd, "HTTP/1.0 200 OK\r\n\r\n");
                                 std::string const block(64 * 1024, 'z');
                                 for (int i = 0; i < 1000 && !stop; ++i)
                                 {
                                     sendAll(fd, block);
                                 }
                             }};
        auto const outcome = mxl::httpExchange("GET", server.url("/"), "", 10s, 1024 * 1024);
        stop = true;
        CHECK(failureOf(outcome) == "the answer is larger than 1048576 bytes");
    }
    {
        OneShotServer server{[](int fd, std::string const&) { sendAll(fd, "SSH-2.0-OpenSSH_9.2\r\n\r\n"); }};
        CHECK(failureOf(mxl::httpExchange("GET", server.url("/"), "", 5s)) == "the answer is not HTTP");
    }
    {
        OneShotServer server{[](int, std::string const&) {}};
        CHECK(failureOf(mxl::httpExchange("GET", server.url("/"), "", 5s)) == "the server closed the connection without an answer");
    }
    {
        // localhost resolves to ::1 before 127.0.0.1 where /etc/hosts names both: the server listens on the second only.
        OneShotServer server{[](int fd, std::string const&) { sendAll(fd, "HTTP/1.0 204 No Content\r\n\r\n"); }};
        auto const url = "http://localhost:" + server.url("/").substr(std::string{"http://127.0.0.1:"}.size());
        auto const outcome = mxl::httpExchange("GET", url, "", 5s);
        INFO(failureOf(outcome));
        REQUIRE(std::holds_alternative<HttpAnswer>(outcome));
        CHECK(std::get<HttpAnswer>(outcome).status == 204);
    }
    int port = 0;
    {
        OneShotServer server{[](int, std::string const&) {}};
        port = std::stoi(server.url("").substr(std::string{"http://127.0.0.1:"}.size()));
        mxl::httpExchange("GET", server.url("/"), "", 1s);
    }
    CHECK(failureOf(mxl::httpExchange("GET", fmt::format("http://127.0.0.1:{}/", port), "", 5s)).starts_with("cannot connect: "));
    CHECK(failureOf(mxl::httpExchange("GET", "ftp://127.0.0.1/", "", 5s)) == "not an http:// or https://host[:port]/path URL");
}

TEST_CASE("a URL with a line break or a space sends nothing, and an answer quoted in a log line is one line, cut short")
{
    OneShotServer server{[](int fd, std::string const&) { sendAll(fd, "HTTP/1.0 200 OK\r\n\r\n{}"); }};
    // The request line and headers of the URL's choosing, and a second request behind them.
    auto const injected = server.url("/x HTTP/1.0\r\nX-Evil: injected\r\nContent-Length: 0\r\n\r\nDELETE /senders/s1/");
    CHECK_FALSE(mxl::isHttpUrl(injected));
    CHECK_FALSE(mxl::isHttpUrl(server.url("/a b")));
    CHECK(mxl::isHttpUrl(server.url("/x-nmos/connection/v1.1/single/senders/s1/")));
    CHECK(failureOf(mxl::httpExchange("PATCH", injected, "{}", 5s)).starts_with("the URL http://127.0.0.1:"));
    CHECK(failureOf(mxl::httpExchange("PATCH", injected, "{}", 5s)).ends_with("DELETE /senders/s1/ holds a space or a control byte"));
    // Nothing was sent: the server's one connection is still free for this exchange.
    REQUIRE(std::holds_alternative<HttpAnswer>(mxl::httpExchange("GET", server.url("/"), "", 5s)));
    CHECK(server.received.starts_with("GET / HTTP/1.0\r\n"));

    std::string const body = "oops\n<0>mxl-fabrics-service: FORGED\x1b[31m" + std::string(1000000, 'x');
    auto const described = mxl::describeAnswer("http://127.0.0.1:1", "POST", "/health", HttpAnswer{500, body});
    CHECK(described.find('\n') == std::string::npos);
    CHECK(described.find('\x1b') == std::string::npos);
    CHECK(described.starts_with("POST http://127.0.0.1:1/health answered 500: oops\\n<0>mxl-fabrics-service: FORGED\\x1b[31mxxx"));
    CHECK(described.ends_with("... (1000040 bytes)"));
    CHECK(described.size() < 400);
}

TEST_CASE("a URL's scheme is taken in any case: HTTP:// is asked as http://, HTTPS:// counts as https://, and lowercaseScheme "
          "lowers the scheme alone")
{
    OneShotServer server{[](int fd, std::string const&) { sendAll(fd, "HTTP/1.0 200 OK\r\n\r\nticket"); }};
    auto const url = "HTTP" + server.url("/ticket").substr(4);
    REQUIRE(url.starts_with("HTTP://127.0.0.1:"));
    auto const outcome = mxl::httpGet(url, 5s);
    auto const* failure = std::get_if<HttpFailure>(&outcome);
    INFO((failure != nullptr ? failure->reason : std::string{}));
    REQUIRE(std::holds_alternative<std::string>(outcome));
    CHECK(std::get<std::string>(outcome) == "ticket");
    CHECK(server.received.starts_with("GET /ticket HTTP/1.0\r\n"));

    CHECK(mxl::isHttpUrl("hTtP://registry.example:8080/"));
    CHECK(mxl::isHttpUrl("HTTPS://registry.example/"));
    CHECK_FALSE(mxl::isHttpUrl("HTTPX://registry.example/"));
    CHECK_FALSE(mxl::isHttpUrl("HTTP:/registry.example/"));
    CHECK(mxl::isHttpsUrl("HTTPS://auth.example/"));
    CHECK(mxl::isHttpsUrl("Https://auth.example/"));
    CHECK_FALSE(mxl::isHttpsUrl("HTTP://auth.example/"));
    CHECK_FALSE(mxl::isHttpsUrl("HTTPS:"));
    CHECK(mxl::lowercaseScheme("HTTPS://Auth.Example/Realm") == "https://Auth.Example/Realm");
    CHECK(mxl::lowercaseScheme("no scheme HERE") == "no scheme HERE");
}
