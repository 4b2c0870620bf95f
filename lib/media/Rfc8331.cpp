#include "Rfc8331.hpp"

#include "AncFormatError.hpp"
#include "BitStream.hpp"
#include "PacketFields.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace mxl::media
{
    namespace
    {
        // C .. Data_Count: the bits before the user data words.
        constexpr std::size_t rfc8331FixedBits = fields::placementBits + 1 + 7 + fields::contentHeadBits;

        class Rfc8331PacketReader
        {
        public:
            Rfc8331PacketReader(std::span<std::uint8_t const> payload, std::size_t length)
                : _payload{payload}
                , _length{length}
                , _reader{payload, rfc8331HeaderBytes}
            {
            }

            AncPacket read(std::size_t number)
            {
                _number = number;
                _startByte = _reader.bitPosition() / 8;
                need(rfc8331FixedBits, "Data_Count");
                AncPacket packet;
                fields::getPlacement(_reader, packet);
                packet.dataStreamFlag = _reader.get(1) != 0;
                packet.streamNum = static_cast<std::uint8_t>(_reader.get(7));
                fields::getContent(_reader, packet, [this](std::size_t bits, std::string const& what) { need(bits, what); });
                auto const alignBits = (32 - (_reader.bitPosition() - _startByte * 8) % 32) % 32;
                need(alignBits, "word_align");
                if (auto const align = _reader.get(static_cast<unsigned>(alignBits)); align != 0)
                {
                    refuse(fmt::format("word_align {:#x} ({} bits) is not zero", align, alignBits));
                }
                return packet;
            }

            [[nodiscard]] std::size_t endByte() const noexcept
            {
                return _reader.bitPosition() / 8;
            }

        private:
            std::span<std::uint8_t const> _payload;
            std::size_t _length;
            BitReader _reader;
            std::size_t _number = 0;
            std::size_t _startByte = 0;

            void need(std::size_t bits, std::string const& what) const
            {
                if (_reader.remainingBits() < bits)
                {
                    refuse(fmt::format("{} runs past the payload's end at byte {} (Length {})", what, _payload.size(), _length));
                }
            }

            [[noreturn]] void refuse(std::string const& what) const
            {
                throw AncFormatError{fmt::format("RFC 8331 packet {} at byte {}: {}", _number, _startByte, what)};
            }
        };
    }

    std::vector<std::uint8_t> writeRfc8331(std::span<AncPacket const> packets, std::uint8_t field)
    {
        if (packets.size() > 255)
        {
            throw std::invalid_argument{fmt::format("RFC 8331 carries at most 255 ANC packets per payload, not {}", packets.size())};
        }
        std::vector<std::uint8_t> bytes;
        BitWriter writer{bytes};
        writer.put(0, 16);
        writer.put(static_cast<std::uint32_t>(packets.size()), 8);
        writer.put(field, 2);
        writer.put(0, 22);
        for (auto const& packet : packets)
        {
            checkUserDataWordCount(packet);
            auto const start = bytes.size();
            fields::putPlacement(writer, packet);
            writer.put(packet.dataStreamFlag ? 1U : 0U, 1);
            writer.put(packet.streamNum, 7);
            fields::putContent(writer, packet);
            writer.alignTo(32, false, start);
        }
        auto const length = bytes.size() - rfc8331HeaderBytes;
        if (length > 0xffff)
        {
            throw std::invalid_argument{fmt::format("{} bytes of ANC packets do not fit RFC 8331's 16-bit Length", length)};
        }
        bytes[0] = static_cast<std::uint8_t>(length >> 8U);
        bytes[1] = static_cast<std::uint8_t>(length & 0xffU);
        return bytes;
    }

    Rfc8331Payload readRfc8331(std::span<std::uint8_t const> bytes)
    {
        if (bytes.size() < rfc8331HeaderBytes)
        {
            throw AncFormatError{
                fmt::format("RFC 8331 payload of {} bytes is shorter than its {}-byte header", bytes.size(), rfc8331HeaderBytes)};
        }
        auto const length = std::size_t{bytes[0]} << 8U | std::size_t{bytes[1]};
        if (rfc8331HeaderBytes + length > bytes.size())
        {
            throw AncFormatError{fmt::format("RFC 8331 payload: Length {} runs past the buffer's {} bytes", length, bytes.size())};
        }
        auto const count = std::size_t{bytes[2]};
        Rfc8331Payload payload;
        payload.field = static_cast<std::uint8_t>(bytes[3] >> 6U);
        auto const limited = bytes.first(rfc8331HeaderBytes + length);
        Rfc8331PacketReader reader{limited, length};
        payload.packets.reserve(count);
        for (std::size_t number = 1; number <= count; ++number)
        {
            payload.packets.push_back(reader.read(number));
        }
        if (reader.endByte() != limited.size())
        {
            throw AncFormatError{fmt::format("RFC 8331 payload: its ANC_Count {} packets end at byte {}, but Length {} ends it at byte {}",
                                             count, reader.endByte(), length, limited.size())};
        }
        return payload;
    }
}
