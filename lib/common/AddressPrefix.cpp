#include "common/AddressPrefix.hpp"

#include "common/Status.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <cstring>

namespace mxl
{
    namespace
    {
        constexpr std::array<std::uint8_t, 12> v4MappedPrefix{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

        std::size_t addressBytes(IpAddress const& address) noexcept
        {
            return address.v6 ? 16 : 4;
        }
    }

    std::optional<IpAddress> IpAddress::of(sockaddr const* address, std::size_t length) noexcept
    {
        if (address == nullptr || length < sizeof(sa_family_t))
        {
            return std::nullopt;
        }
        IpAddress result;
        if (address->sa_family == AF_INET && length >= sizeof(sockaddr_in))
        {
            sockaddr_in v4;
            std::memcpy(&v4, address, sizeof v4);
            std::memcpy(result.bytes.data(), &v4.sin_addr, 4);
            return result;
        }
        if (address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6))
        {
            sockaddr_in6 v6;
            std::memcpy(&v6, address, sizeof v6);
            if (std::memcmp(&v6.sin6_addr, v4MappedPrefix.data(), v4MappedPrefix.size()) == 0)
            {
                std::memcpy(result.bytes.data(), reinterpret_cast<std::uint8_t const*>(&v6.sin6_addr) + 12, 4);
                return result;
            }
            result.v6 = true;
            std::memcpy(result.bytes.data(), &v6.sin6_addr, 16);
            return result;
        }
        return std::nullopt;
    }

    std::string IpAddress::text() const
    {
        char text[INET6_ADDRSTRLEN] = {};
        ::inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), text, sizeof text);
        return text;
    }

    AddressPrefix AddressPrefix::parse(std::string_view text)
    {
        auto const slash = text.find('/');
        std::string const address{text.substr(0, slash)};
        AddressPrefix prefix;
        if (::inet_pton(AF_INET, address.c_str(), prefix._network.bytes.data()) == 1)
        {
            prefix._network.v6 = false;
        }
        else if (::inet_pton(AF_INET6, address.c_str(), prefix._network.bytes.data()) == 1)
        {
            prefix._network.v6 = true;
        }
        else
        {
            fail(MXL_ERR_INVALID_ARG, "'{}' is not an IPv4 or IPv6 address (with an optional /prefix length)", text);
        }
        auto const maxBits = static_cast<unsigned>(8 * addressBytes(prefix._network));
        prefix._bits = maxBits;
        if (slash != std::string_view::npos)
        {
            auto const length = text.substr(slash + 1);
            unsigned bits = 0;
            auto const [end, error] = std::from_chars(length.data(), length.data() + length.size(), bits);
            if (length.empty() || error != std::errc{} || end != length.data() + length.size() || bits > maxBits)
            {
                fail(MXL_ERR_INVALID_ARG, "'{}': the prefix length must be a number from 0 to {}", text, maxBits);
            }
            prefix._bits = bits;
        }
        IpAddress masked = prefix._network;
        for (unsigned bit = prefix._bits; bit < maxBits; ++bit)
        {
            masked.bytes[bit / 8] &= static_cast<std::uint8_t>(~(0x80u >> (bit % 8)));
        }
        if (masked.bytes != prefix._network.bytes)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "'{}' has bits set past its /{} prefix: write {}/{} for the subnet, or the address alone for the host", text, prefix._bits,
                 masked.text(), prefix._bits);
        }
        return prefix;
    }

    bool AddressPrefix::contains(IpAddress const& address) const noexcept
    {
        if (address.v6 != _network.v6)
        {
            return false;
        }
        auto const whole = _bits / 8;
        if (std::memcmp(address.bytes.data(), _network.bytes.data(), whole) != 0)
        {
            return false;
        }
        auto const rest = _bits % 8;
        if (rest == 0)
        {
            return true;
        }
        auto const mask = static_cast<std::uint8_t>(0xff00u >> rest);
        return (address.bytes[whole] & mask) == (_network.bytes[whole] & mask);
    }

    std::string AddressPrefix::text() const
    {
        return _network.text() + "/" + std::to_string(_bits);
    }
}
