#include "LevelMeter.hpp"

#include "AudioPicture.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace mxl::tools::info
{
    namespace
    {
        constexpr std::array<char const*, 8> blocks{"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
        constexpr double floorDbfs = -48.0;
        constexpr double dbPerBlock = 6.0;

        char const* blockOf(float peak)
        {
            auto const dbfs = decibelsFullScale(peak);
            if (!(dbfs >= floorDbfs))
            {
                return ".";
            }
            auto const step = static_cast<std::size_t>(std::min(7.0, std::floor((dbfs - floorDbfs) / dbPerBlock)));
            return blocks[step];
        }
    }

    std::string formatLevelMeter(std::vector<float> const& peaks)
    {
        std::string bar;
        for (auto const peak : peaks)
        {
            bar += blockOf(peak);
        }
        auto const loudest = std::max_element(peaks.begin(), peaks.end());
        if (loudest == peaks.end())
        {
            return "level [] no channels";
        }
        auto const dbfs = decibelsFullScale(*loudest);
        auto const level = std::isfinite(dbfs) ? fmt::format("{:.1f} dBFS", dbfs) : std::string{"silence"};
        return fmt::format("level [{}] loudest {} (channel {}), last {:.0f} ms", bar, level, loudest - peaks.begin() + 1,
                           levelWindowSeconds * 1000.0);
    }
}
