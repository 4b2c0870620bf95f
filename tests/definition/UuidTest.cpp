// UUID spellings accepted for flow ids (the SDK's stduuid rules) and the canonical form used for directory names.
#include "flow/FlowDefinition.hpp"

#include <doctest/doctest.h>

using mxl::canonicalUuid;

TEST_CASE("uuid: spellings that name the same flow")
{
    auto const canonical = std::optional<std::string>{"5fbec3b1-1b0f-417d-9059-8b94a47197ed"};
    CHECK(canonicalUuid("5fbec3b1-1b0f-417d-9059-8b94a47197ed") == canonical);
    CHECK(canonicalUuid("5FBEC3B1-1B0F-417D-9059-8B94A47197ED") == canonical);
    CHECK(canonicalUuid("5fbec3b11b0f417d90598b94a47197ed") == canonical);
    CHECK(canonicalUuid("{5fbec3b1-1b0f-417d-9059-8b94a47197ed}") == canonical);
    CHECK(canonicalUuid("{5FBEC3B11B0F417D90598B94A47197ED}") == canonical);
}

TEST_CASE("uuid: rejected spellings")
{
    CHECK_FALSE(canonicalUuid(""));
    CHECK_FALSE(canonicalUuid("{}"));
    CHECK_FALSE(canonicalUuid("5fbec3b1-1b0f-417d-9059-8b94a47197e"));
    CHECK_FALSE(canonicalUuid("5fbec3b1-1b0f-417d-9059-8b94a47197edd"));
    CHECK_FALSE(canonicalUuid("5fbec3b1-1b0f-417d-9059-8b94a47197eg"));
    CHECK_FALSE(canonicalUuid("{5fbec3b1-1b0f-417d-9059-8b94a47197ed"));
    CHECK_FALSE(canonicalUuid("5fbec3b1-1b0f-417d-9059-8b94a47197ed}"));
    CHECK_FALSE(canonicalUuid("urn:uuid:5fbec3b1-1b0f-417d-9059-8b94a47197ed"));
    CHECK_FALSE(canonicalUuid(" 5fbec3b1-1b0f-417d-9059-8b94a47197ed"));
}

TEST_CASE("uuid: bytes are in RFC 4122 order and format back to the canonical text")
{
    auto const bytes = mxl::parseUuid("00112233-4455-6677-8899-aabbccddeeff");
    REQUIRE(bytes);
    CHECK(*bytes ==
          std::array<std::uint8_t, 16>{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff});
    CHECK(mxl::formatUuid(*bytes) == "00112233-4455-6677-8899-aabbccddeeff");
}
