#include "SampleRing.hpp"

#include <cstring>

namespace mxl
{
    void SampleRing::zero(std::uint64_t first, std::uint64_t last) const noexcept
    {
        auto const span = range(last, static_cast<std::size_t>(last - first + 1));
        for (std::uint32_t channel = 0; channel < channelCount; ++channel)
        {
            auto const offset = channel * span.strideBytes;
            std::memset(span.first + offset, 0, span.firstBytes);
            std::memset(span.second + offset, 0, span.secondBytes);
        }
    }
}
