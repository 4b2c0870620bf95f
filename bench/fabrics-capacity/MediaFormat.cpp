#include "MediaFormat.hpp"

#include <array>

namespace mxl::bench::capacity
{
    namespace
    {
        constexpr mxlRational videoRate{60000, 1001};
        // 48 kHz in batches of 480 samples.
        constexpr mxlRational audioBatchRate{100, 1};

        // The raw transport sizes its writes as v210 frames; 48 x 240 pixels of v210 are 240 lines of 128 bytes, 30,720
        // bytes: one batch of 480 float32 samples in each of 16 channels.
        GrainFormat const audioBatch{"audio16 batch", 48, 240};

        std::array<MediaFormat, 3> const formats{{
            {"1080p59.94", "v210_1080p59.94.json", false, videoRate, GrainFormat{"1080p", 1920, 1080}},
            {"2160p59.94", "v210_2160p59.94.json", false, videoRate, GrainFormat{"2160p", 3840, 2160}},
            {"audio16", "audio_48k_16ch.json", true, audioBatchRate, audioBatch},
        }};
    }

    std::optional<MediaFormat> mediaFormatNamed(std::string_view name)
    {
        for (auto const& format : formats)
        {
            if (format.name == name)
            {
                return format;
            }
        }
        return std::nullopt;
    }

    std::vector<std::string> mediaFormatNames()
    {
        std::vector<std::string> names;
        for (auto const& format : formats)
        {
            names.push_back(format.name);
        }
        return names;
    }

    double unitPeriodNs(MediaFormat const& format)
    {
        return 1e9 * static_cast<double>(format.unitRate.denominator) / static_cast<double>(format.unitRate.numerator);
    }
}
