#include "PacketFields.hpp"

namespace mxl::media::fields
{
    void putPlacement(BitWriter& writer, AncPacket const& packet)
    {
        writer.put(packet.colourDifferenceChannel ? 1U : 0U, 1);
        writer.put(packet.lineNumber, 11);
        writer.put(packet.horizontalOffset, 12);
    }

    void putContent(BitWriter& writer, AncPacket const& packet)
    {
        writer.put(packet.did, 10);
        writer.put(packet.sdid, 10);
        writer.put(packet.dataCount, 10);
        for (auto const word : packet.userDataWords)
        {
            writer.put(word, 10);
        }
        writer.put(packet.checksum, 10);
    }

    void getPlacement(BitReader& reader, AncPacket& packet) noexcept
    {
        packet.colourDifferenceChannel = reader.get(1) != 0;
        packet.lineNumber = static_cast<std::uint16_t>(reader.get(11));
        packet.horizontalOffset = static_cast<std::uint16_t>(reader.get(12));
    }
}
