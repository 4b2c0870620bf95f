#include "RawHttp.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace mxl::test
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        std::string lower(std::string text)
        {
            std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            return text;
        }

        // True once `received` holds a whole response (head and Content-Length bytes of body).
        bool complete(std::string const& received, RawAnswer& answer)
        {
            auto const end = received.find("\r\n\r\n");
            if (end == std::string::npos)
            {
                return false;
            }
            answer.head = received.substr(0, end);
            answer.body = received.substr(end + 4);
            if (answer.head.starts_with("HTTP/1.") && answer.head.size() >= 12)
            {
                answer.status = std::atoi(answer.head.substr(9, 3).c_str());
            }
            auto const length = answer.header("Content-Length");
            return !length.empty() && answer.body.size() >= std::stoul(length);
        }
    }

    std::string RawAnswer::header(std::string const& name) const
    {
        auto const text = lower(head);
        auto const at = text.find("\r\n" + lower(name) + ":");
        if (at == std::string::npos)
        {
            return {};
        }
        auto const start = head.find_first_not_of(' ', at + 3 + name.size());
        auto const end = head.find("\r\n", start);
        return head.substr(start, end == std::string::npos ? std::string::npos : end - start);
    }

    int connectLoopback(int port, std::uint8_t fromHost)
    {
        auto const fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
        {
            return -1;
        }
        sockaddr_in source{};
        source.sin_family = AF_INET;
        source.sin_addr.s_addr = htonl(INADDR_LOOPBACK - 1 + fromHost);
        if (fromHost != 1 && ::bind(fd, reinterpret_cast<sockaddr const*>(&source), sizeof source) != 0)
        {
            ::close(fd);
            return -1;
        }
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd, reinterpret_cast<sockaddr const*>(&address), sizeof address) != 0)
        {
            ::close(fd);
            return -1;
        }
        return fd;
    }

    RawAnswer rawExchange(int port, std::string const& bytes, std::chrono::milliseconds timeout)
    {
        auto const fd = connectLoopback(port);
        if (fd < 0)
        {
            throw std::runtime_error{fmt::format("cannot connect to 127.0.0.1:{}", port)};
        }
        RawAnswer answer;
        // A server may answer and close before it read everything (a body too large): a failed send is not an error.
        for (std::size_t sent = 0; sent < bytes.size();)
        {
            auto const n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n <= 0)
            {
                break;
            }
            sent += static_cast<std::size_t>(n);
        }
        std::string received;
        auto const deadline = Clock::now() + timeout;
        while (Clock::now() < deadline && !complete(received, answer))
        {
            pollfd poller{fd, POLLIN, 0};
            auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (::poll(&poller, 1, static_cast<int>(std::max<long long>(left, 1))) <= 0)
            {
                continue;
            }
            char buffer[8192];
            auto const n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
            {
                break;
            }
            received.append(buffer, static_cast<std::size_t>(n));
        }
        complete(received, answer);
        ::close(fd);
        return answer;
    }

    std::string rawRequest(std::string const& method, std::string const& target, std::string const& body, std::string const& extraHeaders)
    {
        return fmt::format("{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{}{}\r\n{}", method, target,
                           body.empty() ? std::string{}
                                        : fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", body.size()),
                           extraHeaders, body);
    }

    void activateWithSenderAt(int port, int senderPort)
    {
        auto const receivers = rawExchange(port, rawRequest("GET", "/x-nmos/connection/v1.1/single/receivers/"));
        REQUIRE(receivers.status == 200);
        auto receiverId = nlohmann::json::parse(receivers.body)[0].get<std::string>();
        receiverId.pop_back();
        nlohmann::json const patch{
            {"master_enable", true},
            {"transport_params",
             {{{"ext_mxl_sender_api",
                fmt::format("http://127.0.0.1:{}/x-nmos/connection/v1.1/single/senders/0d6a7f3e-2b1c-4e5d-8f90-a1b2c3d4e5f6/",
                            senderPort)}}}},
            {"activation", {{"mode", "activate_immediate"}}}};
        auto const answer = rawExchange(
            port, rawRequest("PATCH", fmt::format("/x-nmos/connection/v1.1/single/receivers/{}/staged", receiverId), patch.dump()));
        INFO(answer.body);
        REQUIRE(answer.status == 200);
    }

    UniqueFd listenOnLoopback(int& port)
    {
        UniqueFd listener{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr const*>(&address), sizeof address) == 0);
        REQUIRE(::listen(listener.get(), 128) == 0);
        socklen_t length = sizeof address;
        REQUIRE(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
        port = ntohs(address.sin_port);
        return listener;
    }
}
