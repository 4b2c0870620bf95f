// Ancillary data for video/smpte291 grains: SMPTE ST 291-1 packets carried as an RFC 8331 payload. An MXL data grain
// holds the payload from the RFC 8331 Length field on (flow-api §2.10):
//   Length (16, big-endian: bytes of the packets that follow), ANC_Count (8), F (2), reserved (22), then per packet
//   C (1) Line_Number (11) Horizontal_Offset (12) S (1) StreamNum (7) DID (10) SDID (10) Data_Count (10)
//   User_Data_Words (10 each) Checksum_Word (10), zero bits up to the next 32-bit boundary. All fields MSB first.
#pragma once

#include <mxl/rational.h>

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::tools::patterns
{
    struct AncPacket
    {
        bool colourDifferenceChannel = false;
        std::uint16_t lineNumber = 0;
        std::uint16_t horizontalOffset = 0;
        std::uint8_t did = 0;
        std::uint8_t sdid = 0;
        // 10-bit words, parity bits included.
        std::vector<std::uint16_t> userDataWords;
    };

    struct Timecode
    {
        std::uint32_t hours;
        std::uint32_t minutes;
        std::uint32_t seconds;
        std::uint32_t frames;

        friend bool operator==(Timecode const&, Timecode const&) = default;
    };

    // An 8-bit value as a 10-bit ANC word: b8 is even parity over b0-b7, b9 is the inverse of b8.
    std::uint16_t withParity(std::uint8_t value) noexcept;

    // The ST 291-1 checksum: the sum of b0-b8 of DID, SDID, Data_Count and every user data word, modulo 512, with b9
    // the inverse of b8.
    std::uint16_t ancChecksum(AncPacket const& packet) noexcept;

    // The non-drop-frame timecode counting grain `grainIndex` at `rate`, wrapping every 24 hours. Timecode counts whole
    // frames per second (30 for 30000/1001); above 30 Hz two grains share a count, as ST 12-1 frame pairs do.
    Timecode timecodeForIndex(std::uint64_t grainIndex, mxlRational const& rate) noexcept;

    // An SMPTE ST 12-2 ancillary time code packet (DID 0x60, SDID 0x60, 16 user data words): word k carries nibble k
    // of the ST 12-1 time code word in b4-b7 and a distributed binary bit in b3 (DBB1 = 0, LTC, in words 0-7;
    // DBB2 = 0 in words 8-15).
    AncPacket timecodePacket(Timecode const& timecode, std::uint16_t lineNumber);

    // The packet the test source writes into grain `grainIndex`: its timecode on line 9.
    AncPacket grainTimecodePacket(std::uint64_t grainIndex, mxlRational const& rate);

    // The RFC 8331 payload (from the Length field) of `packets`, progressive (F = 0).
    std::vector<std::uint8_t> rfc8331Payload(std::span<AncPacket const> packets);
}
