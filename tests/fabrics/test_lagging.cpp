// When a target counts as lagging: behind another target's progress, never merely late by the clock.
#include "fabrics/core/TargetLink.hpp"

#include <doctest/doctest.h>

namespace
{
    using mxl::fabrics::Clock;
    using mxl::fabrics::PendingTransfer;
    using mxl::fabrics::TargetLink;
    using namespace std::chrono_literals;

    constexpr auto lagTestPatience = 100ms;

    // A target with one write in flight per transfer, posted at the given times, and its last completion at `progressAt`.
    void postedInFlight(TargetLink& link, std::initializer_list<Clock::time_point> postedAt, Clock::time_point progressAt)
    {
        for (auto const at : postedAt)
        {
            auto& transfer = link.transfers.emplace_back();
            transfer.postedAt = at;
            link.notePosted(at);
        }
        link.progressAt = progressAt;
    }

    // A target whose one write has been in flight since t0, with no completion since, and a target with nothing to do.
    struct StalledAndIdle
    {
        StalledAndIdle()
        {
            postedInFlight(slow, {t0}, t0);
        }

        Clock::time_point const t0 = Clock::now();
        TargetLink slow;
        TargetLink idle;
    };
}

TEST_CASE_FIXTURE(StalledAndIdle, "lagging: a stalled target lags behind one that completed everything since")
{
    auto const now = t0 + 150ms;
    CHECK(idle.settledUpTo(now) == now);
    CHECK(slow.settledUpTo(now) == t0);
    CHECK(slow.lagsBehind(idle, now, lagTestPatience));
    CHECK_FALSE(idle.lagsBehind(slow, now, lagTestPatience));
    // Not yet stalled for longer than the lagTestPatience.
    CHECK_FALSE(slow.lagsBehind(idle, t0 + 90ms, lagTestPatience));
}

TEST_CASE("lagging: two targets slowed alike by a loaded machine do not lag behind each other")
{
    auto const t0 = Clock::now();
    TargetLink first;
    TargetLink second;
    auto const now = t0 + 300ms;
    // The second completed a write 10 ms ago, but it still holds transfers posted just after the first's oldest: it is as
    // far behind as the first, only luckier with the scheduler.
    postedInFlight(first, {t0, t0 + 20ms}, t0);
    postedInFlight(second, {t0 + 20ms, t0 + 40ms}, now - 10ms);
    CHECK(first.stalled(now, lagTestPatience));
    CHECK_FALSE(second.stalled(now, lagTestPatience));
    CHECK(second.settledUpTo(now) == t0 + 20ms);
    CHECK_FALSE(first.lagsBehind(second, now, lagTestPatience));
    CHECK_FALSE(second.lagsBehind(first, now, lagTestPatience));
}

TEST_CASE("lagging: a target lags once another settled transfers posted more than the patience after its oldest")
{
    auto const t0 = Clock::now();
    TargetLink behind;
    TargetLink ahead;
    auto const now = t0 + 400ms;
    postedInFlight(behind, {t0}, t0);
    postedInFlight(ahead, {t0 + 99ms}, now - 5ms);
    CHECK_FALSE(behind.lagsBehind(ahead, now, lagTestPatience));
    ahead.transfers.front().postedAt = t0 + 101ms;
    CHECK(behind.lagsBehind(ahead, now, lagTestPatience));
    // An ahead target that stalled in turn is no measure of anything.
    ahead.progressAt = t0 + 150ms;
    CHECK_FALSE(behind.lagsBehind(ahead, now, lagTestPatience));
}

TEST_CASE_FIXTURE(StalledAndIdle, "lagging: a completion ends the lag, and a target never lags behind itself")
{
    auto const now = t0 + 200ms;
    REQUIRE(slow.lagsBehind(idle, now, lagTestPatience));
    CHECK_FALSE(slow.lagsBehind(slow, now, lagTestPatience));
    slow.noteCompleted(now);
    slow.transfers.erase(slow.transfers.begin());
    CHECK(slow.outstandingWrites == 0);
    CHECK_FALSE(slow.lagsBehind(idle, now + 1ms, lagTestPatience));
}
