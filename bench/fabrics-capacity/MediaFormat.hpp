// The formats a capacity run moves: the repository's flow definition the real tools use, and what the raw baseline
// sends instead. The unit of both paths is what travels at once: a grain for video, a batch of the audio flow's commit
// hint (480 samples, 10 ms at 48 kHz) for audio.
#pragma once

#include "GrainFormat.hpp"

#include <mxl/rational.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::bench::capacity
{
    struct MediaFormat
    {
        // As --formats names it: "1080p59.94", "2160p59.94", "audio16".
        std::string name;
        // File name under the flows directory.
        std::string definitionFile;
        bool audio;
        // Units per second on the TAI clock; unit i is due at its timestamp at this rate.
        mxlRational unitRate;
        // The raw baseline's write per unit, after the 8192-byte header the raw transport always writes.
        GrainFormat rawUnit;
    };

    std::optional<MediaFormat> mediaFormatNamed(std::string_view name);

    // Every name mediaFormatNamed knows, in order, for --help and error messages.
    std::vector<std::string> mediaFormatNames();

    // Nanoseconds between units.
    [[nodiscard]] double unitPeriodNs(MediaFormat const& format);
}
