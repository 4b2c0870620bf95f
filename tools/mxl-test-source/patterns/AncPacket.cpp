#include "AncPacket.hpp"

#include <bit>
#include <stdexcept>

namespace mxl::tools::patterns
{
    namespace
    {
        constexpr std::uint8_t st12Did = 0x60;
        constexpr std::uint8_t st12Sdid = 0x60;

        // Appends fields most significant bit first, as RFC 8331 lays them out.
        class BitWriter
        {
        public:
            void put(std::uint32_t value, unsigned bits)
            {
                for (unsigned i = bits; i-- > 0;)
                {
                    if (_bitCount % 8 == 0)
                    {
                        _bytes.push_back(0);
                    }
                    if (((value >> i) & 1U) != 0)
                    {
                        _bytes.back() = static_cast<std::uint8_t>(_bytes.back() | (0x80U >> (_bitCount % 8)));
                    }
                    ++_bitCount;
                }
            }

            void alignTo32Bits()
            {
                while (_bitCount % 32 != 0)
                {
                    put(0, 1);
                }
            }

            [[nodiscard]] std::vector<std::uint8_t> const& bytes() const noexcept
            {
                return _bytes;
            }

        private:
            std::vector<std::uint8_t> _bytes;
            std::size_t _bitCount = 0;
        };

        std::uint16_t tenBitWord(std::uint16_t lowNineBits) noexcept
        {
            auto const b8 = (lowNineBits >> 8) & 1U;
            return static_cast<std::uint16_t>((lowNineBits & 0x1ffU) | ((b8 ^ 1U) << 9));
        }

        // The 64-bit ST 12-1 time code word: units and tens of frames, seconds, minutes and hours in their nibbles,
        // binary groups and flags zero.
        std::uint64_t st12Word(Timecode const& timecode) noexcept
        {
            auto nibble = [](std::uint32_t value, unsigned position) { return std::uint64_t{value & 0xfU} << (4 * position); };
            return nibble(timecode.frames % 10, 0) | nibble(timecode.frames / 10, 2) | nibble(timecode.seconds % 10, 4) |
                   nibble(timecode.seconds / 10, 6) | nibble(timecode.minutes % 10, 8) | nibble(timecode.minutes / 10, 10) |
                   nibble(timecode.hours % 10, 12) | nibble(timecode.hours / 10, 14);
        }
    }

    std::uint16_t withParity(std::uint8_t value) noexcept
    {
        auto const parity = static_cast<std::uint16_t>(std::popcount(value) & 1);
        return tenBitWord(static_cast<std::uint16_t>(value | (parity << 8)));
    }

    std::uint16_t ancChecksum(AncPacket const& packet) noexcept
    {
        auto const dataCount = static_cast<std::uint8_t>(packet.userDataWords.size());
        std::uint32_t sum = 0;
        for (auto const word : {withParity(packet.did), withParity(packet.sdid), withParity(dataCount)})
        {
            sum += word & 0x1ffU;
        }
        for (auto const word : packet.userDataWords)
        {
            sum += word & 0x1ffU;
        }
        return tenBitWord(static_cast<std::uint16_t>(sum & 0x1ffU));
    }

    Timecode timecodeForIndex(std::uint64_t grainIndex, mxlRational const& rate) noexcept
    {
        if (rate.numerator <= 0 || rate.denominator <= 0)
        {
            return Timecode{0, 0, 0, 0};
        }
        auto const grainsPerSecond = static_cast<std::uint64_t>((rate.numerator + rate.denominator - 1) / rate.denominator);
        bool const framePairs = grainsPerSecond > 30;
        auto const framesPerSecond = framePairs ? grainsPerSecond / 2 : grainsPerSecond;
        auto const frame = (framePairs ? grainIndex / 2 : grainIndex) % (framesPerSecond * 86400);
        auto const totalSeconds = frame / framesPerSecond;
        return Timecode{static_cast<std::uint32_t>(totalSeconds / 3600), static_cast<std::uint32_t>(totalSeconds / 60 % 60),
                        static_cast<std::uint32_t>(totalSeconds % 60), static_cast<std::uint32_t>(frame % framesPerSecond)};
    }

    AncPacket timecodePacket(Timecode const& timecode, std::uint16_t lineNumber)
    {
        AncPacket packet;
        packet.lineNumber = lineNumber;
        packet.did = st12Did;
        packet.sdid = st12Sdid;
        auto const word = st12Word(timecode);
        for (unsigned k = 0; k < 16; ++k)
        {
            // b3 carries the distributed binary bits DBB1 and DBB2, both zero here.
            packet.userDataWords.push_back(withParity(static_cast<std::uint8_t>(((word >> (4 * k)) & 0xfU) << 4)));
        }
        return packet;
    }

    AncPacket grainTimecodePacket(std::uint64_t grainIndex, mxlRational const& rate)
    {
        constexpr std::uint16_t timecodeLine = 9;
        return timecodePacket(timecodeForIndex(grainIndex, rate), timecodeLine);
    }

    std::vector<std::uint8_t> rfc8331Payload(std::span<AncPacket const> packets)
    {
        if (packets.size() > 255)
        {
            throw std::invalid_argument{"RFC 8331 carries at most 255 ANC packets per payload"};
        }
        BitWriter body;
        for (auto const& packet : packets)
        {
            if (packet.userDataWords.size() > 255)
            {
                throw std::invalid_argument{"an ANC packet carries at most 255 user data words"};
            }
            body.put(packet.colourDifferenceChannel ? 1U : 0U, 1);
            body.put(packet.lineNumber, 11);
            body.put(packet.horizontalOffset, 12);
            body.put(0, 1);
            body.put(0, 7);
            body.put(withParity(packet.did), 10);
            body.put(withParity(packet.sdid), 10);
            body.put(withParity(static_cast<std::uint8_t>(packet.userDataWords.size())), 10);
            for (auto const word : packet.userDataWords)
            {
                body.put(word, 10);
            }
            body.put(ancChecksum(packet), 10);
            body.alignTo32Bits();
        }

        BitWriter header;
        header.put(static_cast<std::uint32_t>(body.bytes().size()), 16);
        header.put(static_cast<std::uint32_t>(packets.size()), 8);
        header.put(0, 2);
        header.put(0, 22);
        auto payload = header.bytes();
        payload.insert(payload.end(), body.bytes().begin(), body.bytes().end());
        return payload;
    }
}
