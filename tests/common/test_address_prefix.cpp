// AddressPrefix: the subnets of access lists, matched against peers' socket addresses.
#include "common/AddressPrefix.hpp"

#include "common/Status.hpp"

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

namespace
{
    mxl::IpAddress v4(char const* text)
    {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(4791);
        REQUIRE(::inet_pton(AF_INET, text, &address.sin_addr) == 1);
        auto const parsed = mxl::IpAddress::of(reinterpret_cast<sockaddr const*>(&address), sizeof address);
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    mxl::IpAddress v6(char const* text)
    {
        sockaddr_in6 address{};
        address.sin6_family = AF_INET6;
        REQUIRE(::inet_pton(AF_INET6, text, &address.sin6_addr) == 1);
        auto const parsed = mxl::IpAddress::of(reinterpret_cast<sockaddr const*>(&address), sizeof address);
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    bool contains(char const* prefix, mxl::IpAddress const& address)
    {
        return mxl::AddressPrefix::parse(prefix).contains(address);
    }
}

TEST_CASE("address prefix: IPv4 subnets and hosts, at byte and bit boundaries")
{
    CHECK(contains("198.51.100.0/24", v4("198.51.100.2")));
    CHECK(contains("198.51.100.0/24", v4("198.51.100.255")));
    CHECK_FALSE(contains("198.51.100.0/24", v4("198.51.101.2")));
    CHECK(contains("198.51.100.128/25", v4("198.51.100.130")));
    CHECK_FALSE(contains("198.51.100.128/25", v4("198.51.100.2")));
    CHECK(contains("198.51.100.2", v4("198.51.100.2")));
    CHECK_FALSE(contains("198.51.100.2", v4("198.51.100.3")));
    CHECK(contains("0.0.0.0/0", v4("192.0.2.7")));
    CHECK(contains("10.0.0.0/13", v4("10.7.255.1")));
    CHECK_FALSE(contains("10.0.0.0/13", v4("10.8.0.1")));
}

TEST_CASE("address prefix: IPv6, and IPv4-mapped peers match IPv4 prefixes, never IPv6 ones")
{
    CHECK(contains("2001:db8::/32", v6("2001:db8:1::7")));
    CHECK_FALSE(contains("2001:db8::/32", v6("2001:db9::7")));
    CHECK(contains("::1", v6("::1")));
    auto const mapped = v6("::ffff:198.51.100.2");
    CHECK_FALSE(mapped.v6);
    CHECK(mapped.text() == "198.51.100.2");
    CHECK(contains("198.51.100.0/24", mapped));
    CHECK_FALSE(contains("::/0", mapped));
    CHECK_FALSE(contains("0.0.0.0/0", v6("2001:db8::1")));
}

TEST_CASE("address prefix: what is not an address, a length out of range or host bits past the prefix is refused by name")
{
    auto const failure = [](char const* text)
    {
        try
        {
            static_cast<void>(mxl::AddressPrefix::parse(text));
        }
        catch (mxl::Error const& e)
        {
            CHECK(e.status() == MXL_ERR_INVALID_ARG);
            return std::string{e.what()};
        }
        FAIL("accepted: ", text);
        return std::string{};
    };
    CHECK(failure("198.51.100") == "'198.51.100' is not an IPv4 or IPv6 address (with an optional /prefix length)");
    CHECK(failure("") == "'' is not an IPv4 or IPv6 address (with an optional /prefix length)");
    CHECK(failure("198.51.100.0/") == "'198.51.100.0/': the prefix length must be a number from 0 to 32");
    CHECK(failure("198.51.100.0/2x") == "'198.51.100.0/2x': the prefix length must be a number from 0 to 32");
    CHECK(failure("2001:db8::/129") == "'2001:db8::/129': the prefix length must be a number from 0 to 128");
    CHECK(failure("2001:db8::1/32") ==
          "'2001:db8::1/32' has bits set past its /32 prefix: write 2001:db8::/32 for the subnet, or the address alone for the host");
    CHECK(mxl::AddressPrefix::parse("2001:db8::/32").text() == "2001:db8::/32");
}

TEST_CASE("address prefix: a socket address of another family or too short is no IP address")
{
    sockaddr_in address{};
    address.sin_family = AF_INET;
    CHECK_FALSE(mxl::IpAddress::of(reinterpret_cast<sockaddr const*>(&address), sizeof address - 1).has_value());
    CHECK_FALSE(mxl::IpAddress::of(nullptr, 0).has_value());
    sockaddr local{};
    local.sa_family = AF_UNIX;
    CHECK_FALSE(mxl::IpAddress::of(&local, sizeof local).has_value());
}
