// TAI time and index arithmetic used inside the library (the C functions of time.h are thin wrappers over these).
#pragma once

#include <mxl/rational.h>

#include <cstdint>

namespace mxl::timing
{
    // TAI nanoseconds (CLOCK_TAI), 0 on failure.
    std::uint64_t taiNowNs() noexcept;

    // True when num and den are both positive (a zero or negative rate has no ticks to count).
    bool isValidRate(mxlRational const* rate) noexcept;

    // Nearest tick, halves up; MXL_UNDEFINED_INDEX for an invalid rate. 128-bit intermediates.
    std::uint64_t timestampToIndex(mxlRational const& rate, std::uint64_t timestampNs) noexcept;

    // Nearest nanosecond; MXL_UNDEFINED_INDEX for an invalid rate except index 0, which is always at 0.
    std::uint64_t indexToTimestamp(mxlRational const& rate, std::uint64_t index) noexcept;

    // Nanoseconds from now until `index` starts, 0 once it has started or when the clock fails; MXL_UNDEFINED_INDEX
    // for an invalid rate.
    std::uint64_t nsUntilIndex(mxlRational const& rate, std::uint64_t index) noexcept;

    // The CLOCK_MONOTONIC time `timeoutNs` from now, saturating; a timeout of 2^63 or more means "do not wait".
    std::uint64_t deadlineAfterNs(std::uint64_t timeoutNs) noexcept;

    std::uint64_t monotonicNowNs() noexcept;

    // Sleeps on CLOCK_TAI for a duration, or until an absolute TAI time; both resume after signal interruptions.
    void sleepForNs(std::uint64_t durationNs) noexcept;
    void sleepUntilTaiNs(std::uint64_t taiNs) noexcept;
}
