// The fields both byte forms of an ANC packet lay out alike: where the packet goes (C, line number, horizontal offset)
// before each form's own bits, and what it carries (DID, SDID, Data_Count, user data words, checksum) after them.
#pragma once

#include "AncPacket.hpp"
#include "BitStream.hpp"

#include <fmt/format.h>

#include <cstddef>

namespace mxl::media::fields
{
    inline constexpr std::size_t placementBits = 1 + 11 + 12;
    // DID, SDID and Data_Count: the content's bits before the user data words.
    inline constexpr std::size_t contentHeadBits = 3 * 10;

    void putPlacement(BitWriter& writer, AncPacket const& packet);
    void putContent(BitWriter& writer, AncPacket const& packet);

    // The caller checked that placementBits are left.
    void getPlacement(BitReader& reader, AncPacket& packet) noexcept;

    // The caller checked that contentHeadBits are left; `need(bits, what)` refuses the packet when fewer than `bits`
    // remain for the user data words and checksum that Data_Count announces.
    template <typename Need>
    void getContent(BitReader& reader, AncPacket& packet, Need const& need)
    {
        packet.did = static_cast<std::uint16_t>(reader.get(10));
        packet.sdid = static_cast<std::uint16_t>(reader.get(10));
        packet.dataCount = static_cast<std::uint16_t>(reader.get(10));
        auto const words = packet.dataCount & 0xffU;
        need((words + 1) * 10, fmt::format("data_count {} ({} user data words)", packet.dataCount, words));
        packet.userDataWords.reserve(words);
        for (std::size_t i = 0; i < words; ++i)
        {
            packet.userDataWords.push_back(static_cast<std::uint16_t>(reader.get(10)));
        }
        packet.checksum = static_cast<std::uint16_t>(reader.get(10));
    }
}
