#include "flow/Timing.hpp"


#include <cerrno>
#include <ctime>
#include <limits>

namespace mxl::timing
{
    namespace
    {
        // GCC and Clang extension; -Wpedantic needs to be told.
        __extension__ typedef unsigned __int128 u128;

        constexpr std::uint64_t nsPerSecond = 1'000'000'000;
        constexpr std::uint64_t maxU64 = std::numeric_limits<std::uint64_t>::max();

        std::uint64_t toNs(timespec const& ts) noexcept
        {
            return static_cast<std::uint64_t>(ts.tv_sec) * nsPerSecond + static_cast<std::uint64_t>(ts.tv_nsec);
        }

        timespec toTimespec(std::uint64_t ns) noexcept
        {
            return timespec{static_cast<time_t>(ns / nsPerSecond), static_cast<long>(ns % nsPerSecond)};
        }

        std::uint64_t readClockNs(clockid_t clock) noexcept
        {
            timespec now{};
            if (::clock_gettime(clock, &now) != 0)
            {
                return 0;
            }
            return toNs(now);
        }
    }

    // CLOCK_TAI is read as it is, whatever the kernel's TAI offset (issue #609): every other MXL process on the host
    // does the same, and indices must agree between them. The tools say when the offset is unset (lib/client/TaiOffsetCheck).
    std::uint64_t taiNowNs() noexcept
    {
        return readClockNs(CLOCK_TAI);
    }

    std::uint64_t monotonicNowNs() noexcept
    {
        return readClockNs(CLOCK_MONOTONIC);
    }

    bool isValidRate(mxlRational const* rate) noexcept
    {
        return rate != nullptr && rate->numerator > 0 && rate->denominator > 0;
    }

    std::uint64_t timestampToIndex(mxlRational const& rate, std::uint64_t timestampNs) noexcept
    {
        if (!isValidRate(&rate))
        {
            return MXL_UNDEFINED_INDEX;
        }
        auto const num = static_cast<u128>(rate.numerator);
        auto const den = static_cast<u128>(rate.denominator);
        // ts × num < 2^127 and the half-tick term < 2^93: no overflow. Adding half a tick before the floor rounds to
        // nearest with halves going up.
        auto const index = (timestampNs * num + (nsPerSecond / 2) * den) / (nsPerSecond * den);
        return index >= maxU64 ? MXL_UNDEFINED_INDEX : static_cast<std::uint64_t>(index);
    }

    std::uint64_t indexToTimestamp(mxlRational const& rate, std::uint64_t index) noexcept
    {
        // Index 0 sits at the epoch whatever the rate; the SDK answers 0 even for an invalid rate and callers rely on it.
        if (index == 0)
        {
            return 0;
        }
        if (!isValidRate(&rate))
        {
            return MXL_UNDEFINED_INDEX;
        }
        auto const num = static_cast<u128>(rate.numerator);
        auto const indexTimesDen = static_cast<u128>(index) * static_cast<u128>(rate.denominator);
        // index × den can reach 2^127, so the multiplication by 10^9 is checked.
        if (indexTimesDen > (~u128{0} - num / 2) / nsPerSecond)
        {
            return MXL_UNDEFINED_INDEX;
        }
        auto const timestamp = (indexTimesDen * nsPerSecond + num / 2) / num;
        return timestamp >= maxU64 ? MXL_UNDEFINED_INDEX : static_cast<std::uint64_t>(timestamp);
    }

    std::uint64_t nsUntilIndex(mxlRational const& rate, std::uint64_t index) noexcept
    {
        if (!isValidRate(&rate))
        {
            return MXL_UNDEFINED_INDEX;
        }
        auto const now = taiNowNs();
        auto const start = indexToTimestamp(rate, index);
        if (now == 0 || start <= now)
        {
            return 0;
        }
        return start - now;
    }

    std::uint64_t deadlineAfterNs(std::uint64_t timeoutNs) noexcept
    {
        auto const now = monotonicNowNs();
        // The SDK adds the timeout as a signed 64-bit value, so 2^63 and above land in the past: callers pass
        // UINT64_MAX to mean "just look".
        if (timeoutNs >= (std::uint64_t{1} << 63))
        {
            return now;
        }
        return timeoutNs > maxU64 - now ? maxU64 : now + timeoutNs;
    }

    void sleepForNs(std::uint64_t durationNs) noexcept
    {
        auto remaining = toTimespec(durationNs);
        while (::clock_nanosleep(CLOCK_TAI, 0, &remaining, &remaining) == EINTR)
        {
        }
    }

    void sleepUntilTaiNs(std::uint64_t taiNs) noexcept
    {
        // An absolute deadline does not drift however often a signal interrupts the sleep.
        auto const deadline = toTimespec(taiNs);
        while (::clock_nanosleep(CLOCK_TAI, TIMER_ABSTIME, &deadline, nullptr) == EINTR)
        {
        }
    }
}
