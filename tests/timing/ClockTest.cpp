// The TAI clock, the TAI-offset warning of issue #609, and sleeping on absolute and relative TAI deadlines.
#include "common/Log.hpp"

#include <mxl/time.h>

#include <client/LogCapture.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <string>
#include <sys/time.h>
#include <sys/timex.h>
#include <unistd.h>

using mxl::client::LogCapture;
using mxl::client::occurrences;

namespace
{
    long kernelTaiOffsetSeconds()
    {
        timex query{};
        REQUIRE(::adjtimex(&query) != -1);
        return query.tai;
    }

    std::uint64_t clockNs(clockid_t clock)
    {
        timespec now{};
        ::clock_gettime(clock, &now);
        return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<std::uint64_t>(now.tv_nsec);
    }

    std::int64_t elapsedNsSince(std::chrono::steady_clock::time_point start)
    {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    }

    volatile std::sig_atomic_t alarms = 0;

    // A 5 ms repeating SIGALRM without SA_RESTART, so that every sleep in its scope is interrupted several times.
    class RepeatingAlarm
    {
    public:
        RepeatingAlarm()
        {
            struct sigaction action
            {
            };
            action.sa_handler = [](int) { alarms = alarms + 1; };
            ::sigaction(SIGALRM, &action, &_previous);
            itimerval timer{{0, 5000}, {0, 5000}};
            ::setitimer(ITIMER_REAL, &timer, nullptr);
        }

        ~RepeatingAlarm()
        {
            itimerval off{};
            ::setitimer(ITIMER_REAL, &off, nullptr);
            ::sigaction(SIGALRM, &_previous, nullptr);
        }

        RepeatingAlarm(RepeatingAlarm const&) = delete;
        RepeatingAlarm& operator=(RepeatingAlarm const&) = delete;

    private:
        struct sigaction _previous
        {
        };
    };

    constexpr std::int64_t sleepNs = 30'000'000;
}

// The library reads CLOCK_TAI as it is and never warns about the kernel's TAI offset (issue #609): a benchmark makes
// dozens of instances. The tools say it once at start (tests/tools).
TEST_CASE("clock: the library says nothing about the kernel's TAI offset, however often the clock is read")
{
    LogCapture capture;
    for (int i = 0; i < 5; ++i)
    {
        CHECK(mxlGetTime() != 0);
    }
    auto const text = capture.text();
    INFO("stderr: ", text);
    CHECK(occurrences(text, "TAI offset") == 0u);
}

TEST_CASE("clock: mxlGetTime reads CLOCK_TAI, which is CLOCK_REALTIME plus the kernel's TAI offset")
{
    auto const tai = mxlGetTime();
    auto const realtime = clockNs(CLOCK_REALTIME);
    auto const offsetNs = static_cast<std::int64_t>(kernelTaiOffsetSeconds()) * 1'000'000'000;
    auto const differenceNs = static_cast<std::int64_t>(tai - realtime) - offsetNs;
    CHECK(differenceNs < 50'000'000);
    CHECK(differenceNs > -50'000'000);

    auto const before = clockNs(CLOCK_TAI);
    auto const now = mxlGetTime();
    CHECK(now >= before);
    CHECK(now - before < 50'000'000);
}

TEST_CASE("clock: the epoch is 1970-01-01 00:00:00 (test 3)")
{
    std::time_t const epoch = 0;
    std::tm parts{};
    REQUIRE(::gmtime_r(&epoch, &parts) != nullptr);
    CHECK(parts.tm_year == 70);
    CHECK(parts.tm_mon == 0);
    CHECK(parts.tm_mday == 1);
    CHECK(parts.tm_hour == 0);
    CHECK(parts.tm_min == 0);
    CHECK(parts.tm_sec == 0);
}

TEST_CASE("clock: mxlSleepForNs sleeps at least as long as asked, through signals")
{
    auto const start = std::chrono::steady_clock::now();
    mxlSleepForNs(sleepNs);
    CHECK(elapsedNsSince(start) >= sleepNs);

    RepeatingAlarm alarm;
    alarms = 0;
    auto const interrupted = std::chrono::steady_clock::now();
    mxlSleepForNs(sleepNs);
    CHECK(elapsedNsSince(interrupted) >= sleepNs);
    CHECK(alarms > 0);
}

TEST_CASE("clock: mxlSleepUntil wakes at the absolute TAI deadline, through signals")
{
    auto deadline = mxlGetTime() + sleepNs;
    mxlSleepUntil(deadline);
    CHECK(mxlGetTime() >= deadline);

    RepeatingAlarm alarm;
    alarms = 0;
    deadline = mxlGetTime() + sleepNs;
    mxlSleepUntil(deadline);
    CHECK(mxlGetTime() >= deadline);
    CHECK(alarms > 0);
}

TEST_CASE("clock: sleeping until a past time or for 0 ns returns at once")
{
    auto const start = std::chrono::steady_clock::now();
    mxlSleepUntil(mxlGetTime() - 1'000'000'000);
    mxlSleepUntil(0);
    mxlSleepForNs(0);
    CHECK(elapsedNsSince(start) < 10'000'000);
}
