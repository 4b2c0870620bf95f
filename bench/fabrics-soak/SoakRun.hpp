// One soak run: a source and a libmxl-fabrics initiator in one process, the target in another, the checker in a third,
// each on its own domain's flow; `grains` grains pushed as fast as the checker verifies them.
#pragma once

#include <cstdint>
#include <string>

namespace mxl::bench
{
    struct SoakConfig
    {
        std::string provider;
        // "1080p" or "2160p" (v210, 59.94 Hz).
        std::string format;
        std::uint64_t grains = 0;
    };

    // Resident memory and open file descriptors of one process.
    struct ProcessFootprint
    {
        std::uint64_t rssKiB = 0;
        std::uint64_t openFds = 0;
    };

    struct SoakResult
    {
        std::uint64_t sent = 0;
        // Checked byte for byte at the target.
        std::uint64_t verified = 0;
        // Committed valid with words of no grain.
        std::uint64_t bad = 0;
        // Committed valid with words of another grain's index.
        std::uint64_t torn = 0;
        // Committed flagged MXL_GRAIN_FLAG_INVALID, or never committed: lost.
        std::uint64_t lost = 0;
        // What the initiator reported lost: invalidated transfers and posts refused.
        std::uint64_t reported = 0;
        double seconds = 0;
        ProcessFootprint initiatorStart, initiatorEnd, targetStart, targetEnd;
    };

    // Throws std::runtime_error naming the failing end.
    SoakResult runSoak(SoakConfig const& config);
}
