// Lines of a condition that repeats at the rate of the media (common/RepeatLog.hpp): the first of each kind at once,
// then at most one an interval with the count of those left out, each kind on its own clock.
#include "common/RepeatLog.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>

using namespace std::chrono_literals;

TEST_CASE("a repeating line is logged first at once, then once an interval with how many were left out, each kind apart")
{
    mxl::RepeatLog log{10s};
    mxl::RepeatLog::Clock::time_point const start{};
    auto const lost = [](int entry) { return "bounce-buffer entry " + std::to_string(entry) + " was overwritten; those samples are lost"; };

    CHECK(log.admit(lost(3), start) == std::optional<std::string>{" (repeats of this are logged at most every 10 s)"});
    // Another entry is the same kind: the numbers are masked.
    for (int entry = 4; entry < 54; ++entry)
    {
        CHECK(log.admit(lost(entry), start + 1ms * entry) == std::nullopt);
    }
    // Another kind has a clock of its own.
    CHECK(log.admit("the transmit queue stayed full", start + 2s) ==
          std::optional<std::string>{" (repeats of this are logged at most every 10 s)"});
    CHECK(log.admit("the transmit queue stayed full", start + 3s) == std::nullopt);

    CHECK(log.admit(lost(7), start + 9999ms) == std::nullopt);
    CHECK(log.admit(lost(8), start + 10s) == std::optional<std::string>{" (51 more like it since the last such line)"});
    CHECK(log.admit(lost(9), start + 12s) == std::nullopt);
    CHECK(log.admit("the transmit queue stayed full", start + 12s) ==
          std::optional<std::string>{" (1 more like it since the last such line)"});
    // Quiet for an interval: the next one is logged, with nothing left out to report.
    CHECK(log.admit("the transmit queue stayed full", start + 40s) == std::optional<std::string>{""});
}

TEST_CASE("a repeat log holds 64 kinds: past them, a kind quiet for an interval makes room and a new one waits for it")
{
    mxl::RepeatLog log{10s};
    mxl::RepeatLog::Clock::time_point const start{};
    auto const kind = [](int k) { return "failure of kind " + std::string(static_cast<std::size_t>(k) + 1, 'x'); };
    for (int k = 0; k < 64; ++k)
    {
        CHECK(log.admit(kind(k), start + 100ms * k).has_value());
    }
    // Every kind was logged within the interval: no room.
    CHECK_FALSE(log.admit(kind(64), start + 6400ms).has_value());
    // Kind 0 has been quiet for an interval: it makes room.
    CHECK(log.admit(kind(64), start + 10s) == std::optional<std::string>{" (repeats of this are logged at most every 10 s)"});
    CHECK_FALSE(log.admit(kind(0), start + 10s).has_value());
    // Then kind 1: kind 0 comes back as a new kind.
    CHECK(log.admit(kind(0), start + 10100ms) == std::optional<std::string>{" (repeats of this are logged at most every 10 s)"});
}
