// Which failures of a step that is retried (a peer asked again every second) reach the log: the first few kinds of
// failure of an outage (FailureKind.hpp), then none until the step succeeds. A peer whose error text changes at every
// answer (a time, a request id, a parse position) says one thing once, a peer that invents new words at every answer
// costs a few lines per outage, and a change of cause early in an outage still shows.
#pragma once

#include <cstddef>
#include <set>
#include <string>

namespace mxl
{
    class OutageLog
    {
    public:
        explicit OutageLog(std::size_t loggedKinds = 3) noexcept;

        // Whether `reason` is to be logged; `last` is set when it is the last one logged in this outage.
        [[nodiscard]] bool admit(std::string const& reason, bool& last);

        // A failure came since the step last succeeded.
        [[nodiscard]] bool ongoing() const noexcept
        {
            return !_kinds.empty();
        }

        // The step succeeded: the next failure starts another outage.
        void recovered() noexcept;

    private:
        std::size_t _loggedKinds;
        std::set<std::string> _kinds;
    };
}
