// Which lines of a condition that can repeat at the rate of the media reach the log: a transfer a target refused, an
// arrival lost because an initiator ran a whole ring ahead. Each comes with a status or an event that its caller counts;
// the log needs only to say that it happens. The first line of each kind (failureKind: the text with its numbers
// masked) is logged at once; later ones of that kind at most once an interval, saying how many were left out since.
// A reader that falls behind, or an initiator whose target stopped reading, would otherwise write a line per grain or
// per batch, and a journal's rate limit would then drop the lines that matter.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace mxl
{
    class RepeatLog
    {
    public:
        using Clock = std::chrono::steady_clock;

        explicit RepeatLog(Clock::duration interval = std::chrono::seconds{10}) noexcept;

        // When `line` is to be logged now, what to add to it: on the first of its kind, that repeats are held back; on a
        // later one, how many like it were not logged since the last. nullopt: it is one of those.
        [[nodiscard]] std::optional<std::string> admit(std::string const& line, Clock::time_point now = Clock::now());

    private:
        struct Kind
        {
            Clock::time_point logged;
            std::uint64_t leftOut = 0;
        };

        // Kinds come from the library's own messages with the peer's values masked: a handful. Past this many, kinds
        // not seen for an interval are forgotten, and a new kind waits for room.
        static constexpr std::size_t maxKinds = 64;

        Clock::duration _interval;
        std::map<std::string, Kind> _kinds;

        void forgetQuietKinds(Clock::time_point now);
    };
}
