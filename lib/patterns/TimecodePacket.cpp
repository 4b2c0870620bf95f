#include "TimecodePacket.hpp"

#include <vector>

namespace mxl::patterns
{
    namespace
    {
        constexpr std::uint8_t st12Did = 0x60;
        constexpr std::uint8_t st12Sdid = 0x60;

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

    media::AncPacket timecodePacket(Timecode const& timecode, std::uint16_t lineNumber)
    {
        auto const word = st12Word(timecode);
        std::vector<std::uint16_t> userDataWords;
        userDataWords.reserve(16);
        for (unsigned k = 0; k < 16; ++k)
        {
            // b3 carries the distributed binary bits DBB1 and DBB2, both zero here.
            userDataWords.push_back(media::withParity(static_cast<std::uint8_t>(((word >> (4 * k)) & 0xfU) << 4)));
        }
        return media::makeAncPacket(false, lineNumber, 0, st12Did, st12Sdid, std::move(userDataWords));
    }

    media::AncPacket grainTimecodePacket(std::uint64_t grainIndex, mxlRational const& rate)
    {
        constexpr std::uint16_t timecodeLine = 9;
        return timecodePacket(timecodeForIndex(grainIndex, rate), timecodeLine);
    }
}
