// The ST 12-2 time code packet of the test source in its RFC 8331 payload (lib/media), read back with a bit reader
// written for the test.
#include <patterns/TimecodePacket.hpp>

#include <doctest/doctest.h>
#include <media/Rfc8331.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

using namespace mxl::patterns;
using namespace mxl::media;

namespace
{
    class BitReader
    {
    public:
        explicit BitReader(std::vector<std::uint8_t> const& bytes)
            : _bytes{bytes}
        {
        }

        std::uint32_t get(unsigned bits)
        {
            std::uint32_t value = 0;
            for (unsigned i = 0; i < bits; ++i, ++_position)
            {
                REQUIRE(_position / 8 < _bytes.size());
                value = (value << 1) | ((_bytes[_position / 8] >> (7 - _position % 8)) & 1U);
            }
            return value;
        }

        [[nodiscard]] std::size_t position() const noexcept
        {
            return _position;
        }

    private:
        std::vector<std::uint8_t> const& _bytes;
        std::size_t _position = 0;
    };

    bool evenParityWord(std::uint32_t word)
    {
        auto const b8 = (word >> 8) & 1U;
        auto const b9 = (word >> 9) & 1U;
        return b9 != b8 && (std::popcount(word & 0xffU) + b8) % 2 == 0;
    }
}

TEST_CASE("ST 12-2 time code counts the grain index without drop frames, frame pairs above 30 Hz")
{
    constexpr mxlRational rate25{25, 1};
    auto const index = ((1ULL * 3600 + 2 * 60 + 3) * 25) + 4;
    CHECK(timecodeForIndex(index, rate25) == Timecode{1, 2, 3, 4});
    CHECK(timecodeForIndex(index + 24ULL * 3600 * 25, rate25) == Timecode{1, 2, 3, 4});

    constexpr mxlRational rate2997{30000, 1001};
    CHECK(timecodeForIndex(30 * 61 + 29, rate2997) == Timecode{0, 1, 1, 29});

    constexpr mxlRational rate5994{60000, 1001};
    CHECK(timecodeForIndex(2 * (30 * 10 + 7) + 1, rate5994) == Timecode{0, 0, 10, 7});
}

TEST_CASE("RFC 8331 payload of one ST 12-2 packet: header, packet fields, parity, checksum, 32-bit alignment")
{
    std::array const packets{timecodePacket(Timecode{12, 34, 56, 17}, 9)};
    auto const payload = writeRfc8331(packets);

    // 32 bits of C/line/offset/S/stream, 20 ten-bit words (DID, SDID, DC, 16 UDW, checksum) = 232 bits -> 256.
    REQUIRE(payload.size() == 6 + 32);
    BitReader reader{payload};
    CHECK(reader.get(16) == 32); // Length: bytes after the header
    CHECK(reader.get(8) == 1);   // ANC_Count
    CHECK(reader.get(2) == 0);   // F: progressive
    CHECK(reader.get(22) == 0);  // reserved

    CHECK(reader.get(1) == 0);  // C
    CHECK(reader.get(11) == 9); // Line_Number
    CHECK(reader.get(12) == 0); // Horizontal_Offset
    CHECK(reader.get(1) == 0);  // S
    CHECK(reader.get(7) == 0);  // StreamNum

    auto const did = reader.get(10);
    auto const sdid = reader.get(10);
    auto const dataCount = reader.get(10);
    CHECK(did == 0x260);
    CHECK(sdid == 0x260);
    CHECK(dataCount == 0x110);
    std::uint32_t sum = (did & 0x1ffU) + (sdid & 0x1ffU) + (dataCount & 0x1ffU);

    std::array<std::uint32_t, 16> nibbles{};
    for (auto& nibble : nibbles)
    {
        auto const word = reader.get(10);
        CHECK(evenParityWord(word));
        CHECK((word & 0x0fU) == 0); // b0-b2 zero, b3 (DBB) zero
        nibble = (word >> 4) & 0xfU;
        sum += word & 0x1ffU;
    }
    // ST 12-1 nibbles: frame units/tens at 0/2, seconds at 4/6, minutes at 8/10, hours at 12/14; binary groups zero.
    CHECK(nibbles[0] == 7);
    CHECK(nibbles[2] == 1);
    CHECK(nibbles[4] == 6);
    CHECK(nibbles[6] == 5);
    CHECK(nibbles[8] == 4);
    CHECK(nibbles[10] == 3);
    CHECK(nibbles[12] == 2);
    CHECK(nibbles[14] == 1);
    for (std::size_t group = 1; group < 16; group += 2)
    {
        CHECK(nibbles[group] == 0);
    }

    auto const checksum = reader.get(10);
    CHECK((checksum & 0x1ffU) == (sum & 0x1ffU));
    CHECK(((checksum >> 9) & 1U) != ((checksum >> 8) & 1U));
    CHECK(reader.position() == (6 + 29) * 8);
    CHECK(reader.get(24) == 0); // word_align
}

TEST_CASE("RFC 8331 payload of two packets keeps each packet 32-bit aligned and counts both")
{
    auto const small = makeAncPacket(false, 11, 100, 0x41, 0x01, {withParity(0x89), withParity(0x0a), withParity(0x00), withParity(0x01)});
    std::array const packets{small, timecodePacket(Timecode{0, 0, 0, 1}, 9)};
    auto const payload = writeRfc8331(packets);

    // First packet: 32 + 10 x 8 = 112 bits -> 128 bits (16 bytes); second as above, 32 bytes.
    REQUIRE(payload.size() == 6 + 16 + 32);
    BitReader reader{payload};
    CHECK(reader.get(16) == 48);
    CHECK(reader.get(8) == 2);
    reader.get(24);
    CHECK(reader.get(1) == 0);
    CHECK(reader.get(11) == 11);
    CHECK(reader.get(12) == 100);
    reader.get(8);
    CHECK(reader.get(10) == withParity(0x41));
    CHECK(reader.get(10) == withParity(0x01));
    CHECK(reader.get(10) == withParity(4));
    CHECK(reader.get(10) == withParity(0x89));
    reader.get(10 * 4);
    CHECK(reader.get(16) == 0);
    CHECK(reader.position() == (6 + 16) * 8);
    CHECK(reader.get(1) == 0);
    CHECK(reader.get(11) == 9);
}
