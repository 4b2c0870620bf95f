// The time code the test source writes into video/smpte291 grains: an SMPTE ST 12-2 ancillary time code packet per
// grain, as an mxl::media::AncPacket (lib/media writes it as the grain's RFC 8331 payload).
#pragma once

#include <media/AncPacket.hpp>

#include <mxl/rational.h>

#include <cstdint>

namespace mxl::patterns
{
    struct Timecode
    {
        std::uint32_t hours;
        std::uint32_t minutes;
        std::uint32_t seconds;
        std::uint32_t frames;

        friend bool operator==(Timecode const&, Timecode const&) = default;
    };

    // The non-drop-frame timecode counting grain `grainIndex` at `rate`, wrapping every 24 hours. Timecode counts whole
    // frames per second (30 for 30000/1001); above 30 Hz two grains share a count, as ST 12-1 frame pairs do.
    Timecode timecodeForIndex(std::uint64_t grainIndex, mxlRational const& rate) noexcept;

    // An SMPTE ST 12-2 ancillary time code packet (DID 0x60, SDID 0x60, 16 user data words): word k carries nibble k
    // of the ST 12-1 time code word in b4-b7 and a distributed binary bit in b3 (DBB1 = 0, LTC, in words 0-7;
    // DBB2 = 0 in words 8-15).
    media::AncPacket timecodePacket(Timecode const& timecode, std::uint16_t lineNumber);

    // The packet the test source writes into grain `grainIndex`: its timecode on line 9.
    media::AncPacket grainTimecodePacket(std::uint64_t grainIndex, mxlRational const& rate);
}
