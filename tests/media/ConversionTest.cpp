// RFC 8331 -> ST 2038 -> RFC 8331 and ST 2038 -> RFC 8331 -> ST 2038, byte for byte, and the hand-worked packet's bytes.
#include "AncSamples.hpp"

#include <media/Rfc8331.hpp>
#include <media/St2038.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace mxl::media;
using namespace mxl::test::media;

namespace
{
    std::vector<std::uint8_t> rfc8331ThroughSt2038(std::vector<std::uint8_t> const& rfc8331)
    {
        auto const st2038 = writeSt2038(readRfc8331(rfc8331).packets);
        return writeRfc8331(readSt2038(st2038));
    }

    std::vector<std::uint8_t> st2038ThroughRfc8331(std::vector<std::uint8_t> const& st2038)
    {
        auto const rfc8331 = writeRfc8331(readSt2038(st2038));
        return writeSt2038(readRfc8331(rfc8331).packets);
    }
}

TEST_CASE("the hand-worked packet: its ST 2038 and RFC 8331 bytes, and each converts to the other")
{
    std::vector const packets{handWorkedPacket()};
    std::vector<std::uint8_t> const st2038(handWorkedSt2038.begin(), handWorkedSt2038.end());
    std::vector<std::uint8_t> const rfc8331(handWorkedRfc8331.begin(), handWorkedRfc8331.end());
    CHECK(writeSt2038(packets) == st2038);
    CHECK(writeRfc8331(packets) == rfc8331);
    CHECK(readSt2038(st2038) == packets);
    CHECK(readRfc8331(rfc8331).packets == packets);
    CHECK(writeRfc8331(readSt2038(st2038)) == rfc8331);
    CHECK(writeSt2038(readRfc8331(rfc8331).packets) == st2038);
}

TEST_CASE("one packet of 0 to 5, 254 and 255 user data words converts both ways byte for byte")
{
    for (std::size_t const words : {0U, 1U, 2U, 3U, 4U, 5U, 254U, 255U})
    {
        INFO(words, " user data words");
        std::vector const packets{packetWithWords(words)};
        auto const rfc8331 = writeRfc8331(packets);
        auto const st2038 = writeSt2038(packets);
        // RFC 8331: 32 + (4 + words) x 10 bits, padded to 32; ST 2038: 30 + (4 + words) x 10 bits, padded to 8.
        CHECK(rfc8331.size() == 6 + (32 + (4 + words) * 10 + 31) / 32 * 4);
        CHECK(st2038.size() == (30 + (4 + words) * 10 + 7) / 8);
        CHECK(rfc8331ThroughSt2038(rfc8331) == rfc8331);
        CHECK(st2038ThroughRfc8331(st2038) == st2038);
        CHECK(readRfc8331(rfc8331).packets == packets);
        CHECK(readSt2038(st2038) == packets);
    }
}

TEST_CASE("several packets in one grain or buffer convert both ways byte for byte, in order")
{
    std::vector<AncPacket> packets;
    for (std::size_t const words : {0U, 1U, 2U, 3U, 4U, 5U, 254U, 255U, 16U})
    {
        packets.push_back(packetWithWords(words, static_cast<std::uint8_t>(words)));
    }
    auto const rfc8331 = writeRfc8331(packets);
    CHECK(rfc8331[2] == packets.size());
    CHECK(rfc8331ThroughSt2038(rfc8331) == rfc8331);
    auto const st2038 = writeSt2038(packets);
    CHECK(st2038ThroughRfc8331(st2038) == st2038);
    CHECK(readSt2038(st2038) == packets);
    CHECK(readRfc8331(rfc8331).packets == packets);
}

TEST_CASE("an empty payload and an empty buffer convert to each other")
{
    std::vector<std::uint8_t> const emptyPayload{0, 0, 0, 0, 0, 0};
    CHECK(writeRfc8331({}) == emptyPayload);
    CHECK(readRfc8331(emptyPayload).packets.empty());
    CHECK(writeSt2038({}).empty());
    CHECK(readSt2038({}).empty());
}

TEST_CASE("ST 2038 stuffing bytes after the packets are not packets")
{
    std::vector<std::uint8_t> bytes(handWorkedSt2038.begin(), handWorkedSt2038.end());
    bytes.insert(bytes.end(), 5, std::uint8_t{0xff});
    CHECK(readSt2038(bytes) == std::vector{handWorkedPacket()});
}

TEST_CASE("a grain's bytes after its payload are not read, and F is kept")
{
    std::vector<std::uint8_t> grain(4096, 0);
    std::copy(handWorkedRfc8331.begin(), handWorkedRfc8331.end(), grain.begin());
    grain[3] = 0x80;
    auto const payload = readRfc8331(grain);
    CHECK(payload.field == 2);
    CHECK(payload.packets == std::vector{handWorkedPacket()});
    CHECK(writeRfc8331(payload.packets, payload.field)[3] == 0x80);
}

TEST_CASE("RFC 8331 S and StreamNum travel in RFC 8331 and are not written to ST 2038")
{
    auto packet = handWorkedPacket();
    packet.dataStreamFlag = true;
    packet.streamNum = 5;
    std::vector const packets{packet};
    CHECK(readRfc8331(writeRfc8331(packets)).packets == packets);
    CHECK(writeSt2038(packets) == std::vector<std::uint8_t>(handWorkedSt2038.begin(), handWorkedSt2038.end()));
}
