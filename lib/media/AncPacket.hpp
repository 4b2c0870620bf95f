// One SMPTE ST 291-1 ancillary data packet, with the fields both RFC 8331 and SMPTE ST 2038 carry. Words are kept as
// they travel, 10 bits with their parity bits b8/b9, so that a packet read in one form is written in the other bit for
// bit, whatever its parity says.
#pragma once

#include <cstdint>
#include <vector>

namespace mxl::media
{
    struct AncPacket
    {
        // C (RFC 8331) or c_not_y_channel_flag (ST 2038): the packet is in the colour-difference channel.
        bool colourDifferenceChannel = false;
        // 11 bits.
        std::uint16_t lineNumber = 0;
        // 12 bits.
        std::uint16_t horizontalOffset = 0;
        // RFC 8331 S and StreamNum (7 bits): which link of a multi-link interface. ST 2038 has neither; they are zero
        // in a packet read from it and not written to it.
        bool dataStreamFlag = false;
        std::uint8_t streamNum = 0;
        // 10-bit words.
        std::uint16_t did = 0;
        std::uint16_t sdid = 0;
        // Its low 8 bits count the user data words.
        std::uint16_t dataCount = 0;
        std::vector<std::uint16_t> userDataWords;
        std::uint16_t checksum = 0;

        friend bool operator==(AncPacket const&, AncPacket const&) = default;
    };

    // An 8-bit value as a 10-bit ANC word: b8 is even parity over b0-b7, b9 is the inverse of b8.
    std::uint16_t withParity(std::uint8_t value) noexcept;

    // The ST 291-1 checksum word of `packet`: the sum of b0-b8 of DID, SDID, Data_Count and every user data word,
    // modulo 512, with b9 the inverse of b8.
    std::uint16_t ancChecksum(AncPacket const& packet) noexcept;

    // A packet of `userDataWords` (10-bit words, at most 255, else std::invalid_argument) with its DID, SDID and
    // Data_Count words given parity and its checksum computed.
    AncPacket makeAncPacket(bool colourDifferenceChannel, std::uint16_t lineNumber, std::uint16_t horizontalOffset, std::uint8_t did,
                            std::uint8_t sdid, std::vector<std::uint16_t> userDataWords);
}

namespace mxl::media
{
    // std::invalid_argument unless the low 8 bits of `packet.dataCount` count its user data words, as a writer needs.
    void checkUserDataWordCount(AncPacket const& packet);
}
