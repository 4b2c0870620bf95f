#include "Futex.hpp"

#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace mxl::futex
{
    void waitUntil(std::uint32_t const& word, std::uint32_t expected, std::uint64_t deadlineNs) noexcept
    {
        // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, so retries need no remaining-time arithmetic.
        timespec const deadline{static_cast<time_t>(deadlineNs / 1'000'000'000), static_cast<long>(deadlineNs % 1'000'000'000)};
        ::syscall(SYS_futex, &word, FUTEX_WAIT_BITSET, expected, &deadline, nullptr, FUTEX_BITSET_MATCH_ANY);
    }

    void wakeAll(std::uint32_t& word) noexcept
    {
        ::syscall(SYS_futex, &word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    }
}
