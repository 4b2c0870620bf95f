// RFC 8331 payloads as an MXL data grain (video/smpte291) holds them, from the Length field on (the RTP header and
// extended sequence number are not stored): Length (16 bits, big-endian: the bytes of the packets that follow),
// ANC_Count (8), F (2: 0 progressive, 2 field 1, 3 field 2), reserved (22), then per packet C (1) Line_Number (11)
// Horizontal_Offset (12) S (1) StreamNum (7) DID SDID Data_Count, the user data words and Checksum_Word (10 bits
// each), and zero bits up to the next 32-bit boundary from the packet's start.
#pragma once

#include "AncPacket.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mxl::media
{
    inline constexpr std::size_t rfc8331HeaderBytes = 6;

    struct Rfc8331Payload
    {
        // F, 2 bits.
        std::uint8_t field = 0;
        std::vector<AncPacket> packets;
    };

    // std::invalid_argument for more than 255 packets, a packet whose data_count does not count its words, or more
    // than 65535 bytes of packets.
    std::vector<std::uint8_t> writeRfc8331(std::span<AncPacket const> packets, std::uint8_t field = 0);

    // The payload at the start of `bytes` (e.g. a whole grain: what follows its 6 + Length bytes is not read).
    // AncFormatError naming the packet, its byte and the field for a payload that is not one.
    Rfc8331Payload readRfc8331(std::span<std::uint8_t const> bytes);
}
