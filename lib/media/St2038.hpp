// SMPTE ST 2038 ANC packets as the PES payload carries them, and GStreamer's meta/x-st-2038 buffers with them: per
// packet '000000' (6 bits), c_not_y_channel_flag (1), line_number (11), horizontal_offset (12), DID, SDID, data_count,
// the user data words and checksum_word (10 bits each, parity bits included), then '1' bits up to the next byte.
// Packets follow each other directly; 0xFF stuffing bytes may end the buffer. Unlike RFC 8331 there is no header and
// no S/StreamNum.
#pragma once

#include "AncPacket.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::media
{
    // std::invalid_argument for a packet whose data_count does not count its words. S and StreamNum are not written.
    std::vector<std::uint8_t> writeSt2038(std::span<AncPacket const> packets);

    // Every packet of `bytes`, up to its end or to 0xFF stuffing bytes that fill the rest. AncFormatError naming the
    // packet, its byte and the field for bytes that are not ST 2038 packets.
    std::vector<AncPacket> readSt2038(std::span<std::uint8_t const> bytes);
}
