#include "UnreachableTicket.hpp"

#include <common/Base64.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

namespace mxl::test
{
    namespace
    {
        // A loopback TCP socket bound to a port of the kernel's choice: a connect to that port is refused while it is open.
        int boundSocket(std::uint16_t& port)
        {
            int const fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            REQUIRE(fd >= 0);
            sockaddr_in address{};
            address.sin_family = AF_INET;
            address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            REQUIRE(::bind(fd, reinterpret_cast<sockaddr const*>(&address), sizeof address) == 0);
            socklen_t length = sizeof address;
            REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
            port = address.sin_port;
            return fd;
        }

        std::string plusOne(nlohmann::json const& decimal)
        {
            return std::to_string(std::stoull(decimal.get<std::string>()) + 1);
        }
    }

    UnreachableTicket::UnreachableTicket(std::string const& ticket)
        : _port{boundSocket(_portNumber)}
    {
        auto json = nlohmann::json::parse(ticket);
        auto address = decodeBase64(json.at("fabricAddress").get<std::string>());
        REQUIRE(address.has_value());
        sockaddr_in target{};
        REQUIRE(address->size() == sizeof target);
        std::memcpy(&target, address->data(), sizeof target);
        REQUIRE(target.sin_family == AF_INET);
        target.sin_port = _portNumber;
        target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        json["fabricAddress"] = encodeBase64({reinterpret_cast<char const*>(&target), sizeof target});
        json["epoch"] = plusOne(json.at("epoch"));
        json["id"] = plusOne(json.at("id"));
        _epoch = std::stoull(json["epoch"].get<std::string>());
        _json = json.dump();
    }
}
