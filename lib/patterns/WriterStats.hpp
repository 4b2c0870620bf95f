// What a writer reports once a second: units (grains, or sample batches for audio) written with content, written
// late, and committed as invalid (or silence) because their time had passed.
#pragma once

#include <cstdint>
#include <string>

namespace mxl::patterns
{
    struct WriterStats
    {
        // "video", "audio", "data".
        std::string kind;
        std::uint64_t written = 0;
        // Written with content, but started more than half a grain (or batch) period after their deadline.
        std::uint64_t late = 0;
        // Committed with MXL_GRAIN_FLAG_INVALID (video, data) or as silence (audio), or skipped as too old to read.
        std::uint64_t invalid = 0;
    };
}
