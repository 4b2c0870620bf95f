#include "GrainFormat.hpp"

namespace mxl::bench
{
    std::size_t GrainFormat::payloadBytes() const noexcept
    {
        auto const lineBytes = (static_cast<std::size_t>(width) + 47) / 48 * 128;
        return lineBytes * static_cast<std::size_t>(height);
    }

    std::optional<GrainFormat> grainFormatNamed(std::string_view name)
    {
        if (name == "1080p")
        {
            return GrainFormat{"1080p", 1920, 1080};
        }
        if (name == "2160p")
        {
            return GrainFormat{"2160p", 3840, 2160};
        }
        return std::nullopt;
    }
}
