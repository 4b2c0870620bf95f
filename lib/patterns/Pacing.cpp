#include "Pacing.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <stdexcept>

namespace mxl::patterns
{
    std::uint64_t indexTimestampNs(mxlRational const& rate, std::uint64_t index)
    {
        auto const timestamp = mxlIndexToTimestamp(&rate, index);
        if (timestamp == MXL_UNDEFINED_INDEX)
        {
            throw std::invalid_argument{
                fmt::format("rate {}/{} cannot pace grains (expected a positive rational)", rate.numerator, rate.denominator)};
        }
        return timestamp;
    }

    std::uint64_t currentIndex(mxlRational const& rate)
    {
        auto const index = mxlGetCurrentIndex(&rate);
        if (index == MXL_UNDEFINED_INDEX)
        {
            throw std::invalid_argument{fmt::format("no current index at rate {}/{} (expected a positive rational and a working TAI clock)",
                                                    rate.numerator, rate.denominator)};
        }
        return index;
    }

    std::uint64_t grainPartDeadlineNs(mxlRational const& rate, std::uint64_t index, std::uint64_t part, std::uint64_t parts)
    {
        auto const start = indexTimestampNs(rate, index);
        auto const period = indexTimestampNs(rate, index + 1) - start;
        // period x part stays far below 2^64 for any rate above a millihertz and any part count up to 65535.
        return start + period * part / parts;
    }

    std::uint64_t sleepUntilDeadline(std::uint64_t deadlineNs, StopRequested stopRequested)
    {
        auto now = mxlGetTime();
        // Signals cut the sleep short (EINTR); only a stop request may end it before the deadline.
        while (now < deadlineNs && !stopRequested())
        {
            mxlSleepUntil(deadlineNs);
            now = mxlGetTime();
        }
        return now > deadlineNs ? now - deadlineNs : 0;
    }
}
