// Which failures of a step that is retried (a peer asked again every second) reach the log: the first few distinct
// reasons of an outage, then none until the step succeeds. A peer whose error text changes at every answer (a time, a
// request id, a parse position) cannot flood the log, and a change of cause early in an outage still shows.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace mxl
{
    class OutageLog
    {
    public:
        static constexpr std::size_t loggedReasons = 3;

        // Whether `reason` is to be logged; `last` is set when it is the last one logged in this outage.
        [[nodiscard]] bool admit(std::string const& reason, bool& last)
        {
            if (_reasons.size() >= loggedReasons || std::find(_reasons.begin(), _reasons.end(), reason) != _reasons.end())
            {
                return false;
            }
            _reasons.push_back(reason);
            last = _reasons.size() == loggedReasons;
            return true;
        }

        // The step succeeded: the next failure starts another outage.
        void recovered() noexcept
        {
            _reasons.clear();
        }

    private:
        std::vector<std::string> _reasons;
    };
}
