// ST 291-1 words: parity bits b8/b9 and the checksum, against values worked out by hand.
#include "AncSamples.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

using namespace mxl::media;
using namespace mxl::test::media;

TEST_CASE("ANC words: b8 is even parity over b0-b7 and b9 its inverse")
{
    CHECK(withParity(0x60) == 0x260);
    CHECK(withParity(0x61) == 0x161);
    CHECK(withParity(0x01) == 0x101);
    CHECK(withParity(0x10) == 0x110);
    CHECK(withParity(0x00) == 0x200);
    CHECK(withParity(0xff) == 0x2ff);
    CHECK(withParity(0x41) == 0x241);
}

TEST_CASE("makeAncPacket gives DID, SDID and Data_Count their parity and computes the checksum")
{
    auto const packet = handWorkedPacket();
    CHECK(packet.did == 0x161);
    CHECK(packet.sdid == 0x101);
    CHECK(packet.dataCount == 0x102);
    CHECK(packet.userDataWords == std::vector<std::uint16_t>{0x200, 0x2ff});
    CHECK(packet.checksum == 0x263);
    CHECK(ancChecksum(packet) == 0x263);
    CHECK_THROWS_WITH_AS(makeAncPacket(false, 9, 0, 0x61, 0x01, std::vector<std::uint16_t>(256, 0x200)),
                         "an ANC packet carries at most 255 user data words, not 256", std::invalid_argument);
}
