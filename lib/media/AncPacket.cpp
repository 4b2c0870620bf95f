#include "AncPacket.hpp"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>
#include <utility>

namespace mxl::media
{
    namespace
    {
        std::uint16_t tenBitWord(std::uint32_t lowNineBits) noexcept
        {
            auto const b8 = (lowNineBits >> 8) & 1U;
            return static_cast<std::uint16_t>((lowNineBits & 0x1ffU) | ((b8 ^ 1U) << 9));
        }
    }

    std::uint16_t withParity(std::uint8_t value) noexcept
    {
        auto const parity = static_cast<std::uint32_t>(std::popcount(value) & 1);
        return tenBitWord(value | (parity << 8));
    }

    std::uint16_t ancChecksum(AncPacket const& packet) noexcept
    {
        std::uint32_t sum = (packet.did & 0x1ffU) + (packet.sdid & 0x1ffU) + (packet.dataCount & 0x1ffU);
        for (auto const word : packet.userDataWords)
        {
            sum += word & 0x1ffU;
        }
        return tenBitWord(sum & 0x1ffU);
    }

    AncPacket makeAncPacket(bool colourDifferenceChannel, std::uint16_t lineNumber, std::uint16_t horizontalOffset, std::uint8_t did,
                            std::uint8_t sdid, std::vector<std::uint16_t> userDataWords)
    {
        if (userDataWords.size() > 255)
        {
            throw std::invalid_argument{fmt::format("an ANC packet carries at most 255 user data words, not {}", userDataWords.size())};
        }
        AncPacket packet;
        packet.colourDifferenceChannel = colourDifferenceChannel;
        packet.lineNumber = lineNumber;
        packet.horizontalOffset = horizontalOffset;
        packet.did = withParity(did);
        packet.sdid = withParity(sdid);
        packet.dataCount = withParity(static_cast<std::uint8_t>(userDataWords.size()));
        packet.userDataWords = std::move(userDataWords);
        packet.checksum = ancChecksum(packet);
        return packet;
    }
}

namespace mxl::media
{
    void checkUserDataWordCount(AncPacket const& packet)
    {
        if ((packet.dataCount & 0xffU) != packet.userDataWords.size())
        {
            throw std::invalid_argument{fmt::format("an ANC packet with data_count {:#x} ({} user data words) holds {} user data words",
                                                    packet.dataCount, packet.dataCount & 0xffU, packet.userDataWords.size())};
        }
    }
}
