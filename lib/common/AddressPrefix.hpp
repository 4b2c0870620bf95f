// An IPv4 or IPv6 address with a prefix length, as access lists name hosts and subnets: "198.51.100.0/24",
// "2001:db8::/32", or "192.0.2.7" (the one host).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sockaddr;

namespace mxl
{
    // A peer's IP address, as a socket address gives it: an IPv4-mapped IPv6 address ("::ffff:192.0.2.7") is its IPv4
    // address, so that a dual-stack listener's peers match IPv4 prefixes.
    struct IpAddress
    {
        bool v6 = false;
        std::array<std::uint8_t, 16> bytes{};

        // std::nullopt for anything but a sockaddr_in or sockaddr_in6 of at least its size.
        static std::optional<IpAddress> of(sockaddr const* address, std::size_t length) noexcept;
        [[nodiscard]] std::string text() const;
    };

    class AddressPrefix
    {
    public:
        // MXL_ERR_INVALID_ARG naming `text` and what is wrong with it (not an address, a length past 32 or 128, host
        // bits set: "198.51.100.7/24" is a typing error more often than a subnet).
        static AddressPrefix parse(std::string_view text);

        [[nodiscard]] bool contains(IpAddress const& address) const noexcept;
        // As written back: "198.51.100.0/24".
        [[nodiscard]] std::string text() const;

    private:
        IpAddress _network;
        unsigned _bits = 0;
    };
}
