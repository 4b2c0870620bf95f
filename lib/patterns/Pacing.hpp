// Pacing on the TAI clock with absolute deadlines. Deadlines are derived from grain (or sample) indices, never from
// the time the previous step took, so that a slow step delays only itself and the schedule never drifts.
#pragma once

#include <mxl/rational.h>

#include <cstdint>

namespace mxl::patterns
{
    // The TAI time at which part `part` of `parts` of grain `index` is due: the grain period split into equal parts,
    // part 0 at the grain's own timestamp.
    std::uint64_t grainPartDeadlineNs(mxlRational const& rate, std::uint64_t index, std::uint64_t part, std::uint64_t parts);

    // The TAI timestamp of `index` at `rate`; throws std::invalid_argument for an unusable rate.
    std::uint64_t indexTimestampNs(mxlRational const& rate, std::uint64_t index);

    // The index current at the TAI clock; throws std::invalid_argument for an unusable rate.
    std::uint64_t currentIndex(mxlRational const& rate);

    // Whether the program asks the writers to stop (e.g. a signal arrived); checked whenever a sleep returns.
    using StopRequested = bool (*)() noexcept;

    // Sleeps until the absolute TAI time `deadlineNs`, or until a signal cuts the sleep short and `stopRequested` says
    // stop, and returns by how many ns the wake-up missed the deadline (0 when on time or woken early).
    std::uint64_t sleepUntilDeadline(std::uint64_t deadlineNs, StopRequested stopRequested);
}
