// How far a flow's head is behind the TAI clock: in the flow's own units (grains, or samples for audio, whose head is a
// sample index; SDK issue #121 compared it like a grain index) and in milliseconds, which users asked for
// (mxl-hands-on #16).
#pragma once

#include <mxl/rational.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::tools::info
{
    struct Latency
    {
        // Current index minus head index; negative when the head is ahead of the clock.
        std::int64_t units;
        double milliseconds;
    };

    // nullopt when nothing has been written (head 0) or the rate is unusable.
    std::optional<Latency> headLatency(mxlRational const& rate, std::uint64_t headIndex, std::uint64_t nowIndex);

    // "2 grains (80.000 ms)", "-480 samples (-10.000 ms, head ahead of the clock)", "none (nothing written yet)".
    std::string formatLatency(std::optional<Latency> const& latency, bool continuous);
}
