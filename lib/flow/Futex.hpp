// Cross-process wake-ups on FlowState.syncCounter. Shared futexes (never FUTEX_PRIVATE) because every process maps
// the `data` file at its own address; they work on read-only mappings, which pthread primitives would not.
#pragma once

#include <cstdint>

namespace mxl::futex
{
    // Sleeps while `*word == expected`, at most until the CLOCK_MONOTONIC time `deadlineNs`. Returns on any wake-up,
    // spurious ones included: callers re-check their condition.
    void waitUntil(std::uint32_t const& word, std::uint32_t expected, std::uint64_t deadlineNs) noexcept;

    void wakeAll(std::uint32_t& word) noexcept;
}
