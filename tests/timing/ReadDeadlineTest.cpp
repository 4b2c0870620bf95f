// Deadlines of blocking reads: CLOCK_MONOTONIC, and a timeout of 2^63 ns or more means "do not wait" as in the SDK.
#include "flow/Timing.hpp"

#include <doctest/doctest.h>

#include <initializer_list>

using mxl::timing::deadlineAfterNs;
using mxl::timing::monotonicNowNs;

TEST_CASE("read deadline: now plus the timeout on the monotonic clock")
{
    auto const before = monotonicNowNs();
    auto const deadline = deadlineAfterNs(1'000'000'000);
    auto const after = monotonicNowNs();
    CHECK(deadline >= before + 1'000'000'000);
    CHECK(deadline <= after + 1'000'000'000);

    auto const immediate = deadlineAfterNs(0);
    CHECK(immediate >= after);
    CHECK(immediate <= monotonicNowNs());
}

TEST_CASE("read deadline: timeouts of 2^63 ns and more do not wait")
{
    for (auto const timeoutNs : {std::uint64_t{1} << 63, (std::uint64_t{1} << 63) + 1, UINT64_MAX})
    {
        CAPTURE(timeoutNs);
        auto const deadline = deadlineAfterNs(timeoutNs);
        CHECK(deadline <= monotonicNowNs());
    }
    // Just below: a deadline centuries away.
    auto const farAway = deadlineAfterNs((std::uint64_t{1} << 63) - 1);
    CHECK(farAway > monotonicNowNs() + (std::uint64_t{1} << 62));
}
