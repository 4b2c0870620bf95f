#include "St2038.hpp"

#include "AncFormatError.hpp"
#include "BitStream.hpp"
#include "PacketFields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace mxl::media
{
    namespace
    {
        // '000000' .. data_count: the bits before the user data words.
        constexpr std::size_t st2038FixedBits = 6 + fields::placementBits + fields::contentHeadBits;

        class St2038PacketReader
        {
        public:
            explicit St2038PacketReader(std::span<std::uint8_t const> bytes)
                : _bytes{bytes}
                , _reader{bytes}
            {
            }

            // Whether a packet follows: bytes are left, and they are not all 0xFF stuffing.
            [[nodiscard]] bool more() const
            {
                auto const rest = _bytes.subspan(_reader.bitPosition() / 8);
                return !std::all_of(rest.begin(), rest.end(), [](std::uint8_t byte) { return byte == 0xff; });
            }

            AncPacket read(std::size_t number)
            {
                _number = number;
                _startByte = _reader.bitPosition() / 8;
                // more() saw a byte that is not stuffing.
                if (auto const zeros = _reader.get(6); zeros != 0)
                {
                    refuse(fmt::format("the 6 bits before c_not_y_channel_flag are {:#04x}, not '000000'", zeros));
                }
                need(st2038FixedBits - 6, "data_count");
                AncPacket packet;
                fields::getPlacement(_reader, packet);
                fields::getContent(_reader, packet, [this](std::size_t bits, std::string const& what) { need(bits, what); });
                auto const stuffingBits = static_cast<unsigned>((8 - _reader.bitPosition() % 8) % 8);
                if (auto const stuffing = _reader.get(stuffingBits); stuffing != (1U << stuffingBits) - 1)
                {
                    refuse(fmt::format("the {} stuffing bits after checksum_word are {:#x}, not all ones", stuffingBits, stuffing));
                }
                return packet;
            }

        private:
            std::span<std::uint8_t const> _bytes;
            BitReader _reader;
            std::size_t _number = 0;
            std::size_t _startByte = 0;

            void need(std::size_t bits, std::string const& what) const
            {
                if (_reader.remainingBits() < bits)
                {
                    refuse(fmt::format("{} runs past the buffer's {} bytes", what, _bytes.size()));
                }
            }

            [[noreturn]] void refuse(std::string const& what) const
            {
                throw AncFormatError{fmt::format("ST 2038 packet {} at byte {}: {}", _number, _startByte, what)};
            }
        };
    }

    std::vector<std::uint8_t> writeSt2038(std::span<AncPacket const> packets)
    {
        std::vector<std::uint8_t> bytes;
        BitWriter writer{bytes};
        for (auto const& packet : packets)
        {
            checkUserDataWordCount(packet);
            writer.put(0, 6);
            fields::putPlacement(writer, packet);
            fields::putContent(writer, packet);
            writer.alignTo(8, true);
        }
        return bytes;
    }

    std::vector<AncPacket> readSt2038(std::span<std::uint8_t const> bytes)
    {
        St2038PacketReader reader{bytes};
        std::vector<AncPacket> packets;
        for (std::size_t number = 1; reader.more(); ++number)
        {
            packets.push_back(reader.read(number));
        }
        return packets;
    }
}
