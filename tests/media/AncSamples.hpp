// Packets for the lib/media tests, and the one packet whose bytes were worked out by hand.
#pragma once

#include <media/AncPacket.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace mxl::test::media
{
    // A packet of `words` user data words (values counting up from `seed`), its parity and checksum computed.
    mxl::media::AncPacket packetWithWords(std::size_t words, std::uint8_t seed = 0);

    // C 0, line 9, offset 0, DID 0x61, SDID 0x01, user data words 0x00 and 0xFF. With parity: DID 0x161, SDID 0x101,
    // Data_Count 0x102, words 0x200 and 0x2FF; checksum (0x161 + 0x101 + 0x102 + 0x000 + 0x0FF) & 0x1FF = 0x063, b9 set:
    // 0x263.
    mxl::media::AncPacket handWorkedPacket();

    // That packet as ST 2038: 6 + 1 + 11 + 12 + 6 x 10 = 90 bits, six '1' stuffing bits.
    inline constexpr std::array<std::uint8_t, 12> handWorkedSt2038{0x00, 0x02, 0x40, 0x01, 0x61, 0x40, 0x50, 0x28, 0x02, 0xff, 0x98, 0xff};

    // As an RFC 8331 payload: Length 12, ANC_Count 1, F 0; the packet's 32 + 60 bits padded with zeros to 96.
    inline constexpr std::array<std::uint8_t, 18> handWorkedRfc8331{0x00, 0x0c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00,
                                                                    0x00, 0x58, 0x50, 0x14, 0x0a, 0x00, 0xbf, 0xe6, 0x30};
}
