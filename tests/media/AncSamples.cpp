#include "AncSamples.hpp"

#include <vector>

namespace mxl::test::media
{
    mxl::media::AncPacket packetWithWords(std::size_t words, std::uint8_t seed)
    {
        std::vector<std::uint16_t> userDataWords;
        userDataWords.reserve(words);
        for (std::size_t i = 0; i < words; ++i)
        {
            userDataWords.push_back(mxl::media::withParity(static_cast<std::uint8_t>(seed + i)));
        }
        return mxl::media::makeAncPacket((words % 2) != 0, static_cast<std::uint16_t>(9 + words), static_cast<std::uint16_t>(words * 3),
                                         0x61, 0x01, std::move(userDataWords));
    }

    mxl::media::AncPacket handWorkedPacket()
    {
        return mxl::media::makeAncPacket(false, 9, 0, 0x61, 0x01, {mxl::media::withParity(0x00), mxl::media::withParity(0xff)});
    }
}
