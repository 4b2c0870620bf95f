// Bytes that are not what they are read as are refused with a message naming the packet, its byte, the field and the
// value.
#include "AncSamples.hpp"

#include <media/AncFormatError.hpp>
#include <media/Rfc8331.hpp>
#include <media/St2038.hpp>

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace mxl::media;
using namespace mxl::test::media;

namespace
{
    std::vector<std::uint8_t> twoPacketSt2038()
    {
        std::vector const packets{handWorkedPacket(), packetWithWords(16)};
        return writeSt2038(packets);
    }

    std::vector<std::uint8_t> handWorkedPayload()
    {
        return {handWorkedRfc8331.begin(), handWorkedRfc8331.end()};
    }

    // The text of the AncFormatError `read` throws, or "accepted".
    std::string refusalOf(auto&& read)
    {
        try
        {
            read();
        }
        catch (AncFormatError const& e)
        {
            return e.what();
        }
        return "accepted";
    }

    std::string st2038Refusal(std::vector<std::uint8_t> const& bytes)
    {
        return refusalOf([&] { static_cast<void>(readSt2038(bytes)); });
    }

    std::string rfc8331Refusal(std::vector<std::uint8_t> const& bytes)
    {
        return refusalOf([&] { static_cast<void>(readRfc8331(bytes)); });
    }
}

TEST_CASE("ST 2038: a packet whose first 6 bits are not zero is refused")
{
    auto bytes = twoPacketSt2038();
    bytes[12] = 0x04;
    CHECK(st2038Refusal(bytes) == "ST 2038 packet 2 at byte 12: the 6 bits before c_not_y_channel_flag are 0x01, not '000000'");
}

TEST_CASE("ST 2038: a packet cut inside its fields, or before its user data words end, is refused")
{
    auto bytes = twoPacketSt2038();
    auto const whole = bytes.size();
    bytes.resize(12 + 5);
    CHECK(st2038Refusal(bytes) == "ST 2038 packet 2 at byte 12: data_count runs past the buffer's 17 bytes");
    bytes = twoPacketSt2038();
    bytes.resize(whole - 3);
    CHECK(st2038Refusal(bytes) == "ST 2038 packet 2 at byte 12: data_count 272 (16 user data words) runs past the buffer's " +
                                      std::to_string(whole - 3) + " bytes");
}

TEST_CASE("ST 2038: stuffing bits that are not ones, and bytes after stuffing that are not 0xFF, are refused")
{
    std::vector<std::uint8_t> bytes{handWorkedSt2038.begin(), handWorkedSt2038.end()};
    bytes.back() = 0xfe;
    CHECK(st2038Refusal(bytes) == "ST 2038 packet 1 at byte 0: the 6 stuffing bits after checksum_word are 0x3e, not all ones");
    bytes.back() = 0xff;
    for (auto const byte : {std::uint8_t{0xff}, std::uint8_t{0xff}, std::uint8_t{0x00}})
    {
        bytes.push_back(byte);
    }
    CHECK(st2038Refusal(bytes) == "ST 2038 packet 2 at byte 12: the 6 bits before c_not_y_channel_flag are 0x3f, not '000000'");
}

TEST_CASE("RFC 8331: a payload shorter than its header, or whose Length runs past the buffer, is refused")
{
    CHECK(rfc8331Refusal({0, 0, 0}) == "RFC 8331 payload of 3 bytes is shorter than its 6-byte header");
    auto bytes = handWorkedPayload();
    bytes[1] = 13;
    CHECK(rfc8331Refusal(bytes) == "RFC 8331 payload: Length 13 runs past the buffer's 18 bytes");
}

TEST_CASE("RFC 8331: an ANC_Count that does not match the packets within Length is refused")
{
    auto bytes = handWorkedPayload();
    bytes[2] = 2;
    CHECK(rfc8331Refusal(bytes) == "RFC 8331 packet 2 at byte 18: Data_Count runs past the payload's end at byte 18 (Length 12)");
    bytes[2] = 0;
    CHECK(rfc8331Refusal(bytes) == "RFC 8331 payload: its ANC_Count 0 packets end at byte 6, but Length 12 ends it at byte 18");
}

TEST_CASE("RFC 8331: a data_count beyond Length, or word_align bits that are not zero, are refused")
{
    auto bytes = handWorkedPayload();
    // Data_Count 0x102 -> 0x1ff: 255 user data words.
    bytes[12] = static_cast<std::uint8_t>((bytes[12] & 0xf0) | 0x07);
    bytes[13] = static_cast<std::uint8_t>(bytes[13] | 0xfc);
    CHECK(rfc8331Refusal(bytes) ==
          "RFC 8331 packet 1 at byte 6: data_count 511 (255 user data words) runs past the payload's end at byte 18 (Length 12)");
    bytes = handWorkedPayload();
    bytes.back() = 0x31;
    CHECK(rfc8331Refusal(bytes) == "RFC 8331 packet 1 at byte 6: word_align 0x1 (4 bits) is not zero");
}

TEST_CASE("writers refuse packets whose data_count does not count their words, and more than 255 packets in RFC 8331")
{
    auto packet = handWorkedPacket();
    packet.userDataWords.push_back(0x200);
    std::vector const packets{packet};
    CHECK_THROWS_WITH_AS(writeSt2038(packets), "an ANC packet with data_count 0x102 (2 user data words) holds 3 user data words",
                         std::invalid_argument);
    std::vector const many(256, handWorkedPacket());
    CHECK_THROWS_WITH_AS(writeRfc8331(many), "RFC 8331 carries at most 255 ANC packets per payload, not 256", std::invalid_argument);
}
