// mxl:// addresses and flow ids as the programs accept them.
#include <client/ClientError.hpp>
#include <client/FlowId.hpp>
#include <client/MxlAddress.hpp>

#include <doctest/doctest.h>

#include <optional>
#include <string>

using namespace mxl::client;

namespace
{
    std::optional<ErrorKind> codeOf(std::string const& address)
    {
        try
        {
            parseMxlAddress(address);
        }
        catch (ClientError const& error)
        {
            return error.kind();
        }
        return std::nullopt;
    }
}

TEST_CASE("flow ids: canonical 8-4-4-4-12 hexadecimal in either case, lowercased")
{
    CHECK(canonicalFlowId("5FBEC3B1-1B0F-417D-9059-8B94A47197ED") == "5fbec3b1-1b0f-417d-9059-8b94a47197ed");
    CHECK_FALSE(canonicalFlowId("5fbec3b11b0f417d90598b94a47197ed"));
    CHECK_FALSE(canonicalFlowId("{5fbec3b1-1b0f-417d-9059-8b94a47197ed}"));
    CHECK_FALSE(canonicalFlowId("5fbec3b1-1b0f-417d-9059-8b94a47197eg"));
    CHECK_FALSE(canonicalFlowId("5fbec3b1-1b0f-417d-9059_8b94a47197ed"));
    CHECK_THROWS_WITH_AS(requireFlowId("nope"), doctest::Contains("'nope' is not a UUID"), ClientError);
}

TEST_CASE("mxl:// address: domain path and every id, percent-decoded")
{
    auto const address =
        parseMxlAddress("mxl:///dev/shm/my%20domain?id=5FBEC3B1-1B0F-417D-9059-8B94A47197ED&id=6fbec3b1-1b0f-417d-9059-8b94a47197ed");
    CHECK(address.domain == "/dev/shm/my domain");
    REQUIRE(address.flowIds.size() == 2);
    CHECK(address.flowIds[0] == "5fbec3b1-1b0f-417d-9059-8b94a47197ed");
    CHECK(address.flowIds[1] == "6fbec3b1-1b0f-417d-9059-8b94a47197ed");

    auto const domainOnly = parseMxlAddress("MXL:///dev/shm/mxl");
    CHECK(domainOnly.domain == "/dev/shm/mxl");
    CHECK(domainOnly.flowIds.empty());
}

TEST_CASE("mxl:// address: a host, another scheme, a bad id or query, or no path are usage errors")
{
    CHECK(codeOf("mxl://host/dev/shm/mxl") == ErrorKind::Usage);
    CHECK(codeOf("mxl://host:1234/dev/shm/mxl") == ErrorKind::Usage);
    CHECK(codeOf("file:///dev/shm/mxl") == ErrorKind::Usage);
    CHECK(codeOf("/dev/shm/mxl") == ErrorKind::Usage);
    CHECK(codeOf("mxl:///dev/shm/mxl?id=xyz") == ErrorKind::Usage);
    CHECK(codeOf("mxl:///dev/shm/mxl?flow=5fbec3b1-1b0f-417d-9059-8b94a47197ed") == ErrorKind::Usage);
    CHECK(codeOf("mxl://") == ErrorKind::Usage);
    CHECK(codeOf("mxl:///dev/shm/%zz") == ErrorKind::Usage);
    CHECK_THROWS_WITH_AS(parseMxlAddress("mxl://studio-a/dev/shm/mxl"), doctest::Contains("names the host 'studio-a'"), ClientError);
}

TEST_CASE("mxl:// address: formatting is the inverse of parsing")
{
    std::vector<std::string> const ids{"5fbec3b1-1b0f-417d-9059-8b94a47197ed", "6fbec3b1-1b0f-417d-9059-8b94a47197ed"};
    auto const text = formatMxlAddress("/dev/shm/mxl", ids);
    CHECK(text == "mxl:///dev/shm/mxl?id=5fbec3b1-1b0f-417d-9059-8b94a47197ed&id=6fbec3b1-1b0f-417d-9059-8b94a47197ed");
    auto const parsed = parseMxlAddress(text);
    CHECK(parsed.domain == "/dev/shm/mxl");
    CHECK(parsed.flowIds == ids);
}

TEST_CASE("mxl:// address: characters outside the path alphabet are percent-encoded")
{
    auto const text = formatMxlAddress("/dev/shm/a b?c", {});
    CHECK(text == "mxl:///dev/shm/a%20b%3Fc");
    CHECK(parseMxlAddress(text).domain == "/dev/shm/a b?c");
}
