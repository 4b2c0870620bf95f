// Waits between attempts to re-establish a connection: `initial`, doubling up to `max`, back to `initial` once a grain
// got through. Keeps a target that is down from being hammered, and a target that is back from waiting long.
#pragma once

#include <algorithm>
#include <chrono>

namespace mxl
{
    class Backoff
    {
    public:
        using Clock = std::chrono::steady_clock;

        Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
            : _initial{initial}
            , _max{max}
            , _delay{initial}
        {
        }

        // True when an attempt may be made now; the next one then waits twice as long.
        bool attemptDue(Clock::time_point now)
        {
            if (now < _nextAttempt)
            {
                return false;
            }
            _nextAttempt = now + _delay;
            _delay = std::min(_delay * 2, _max);
            return true;
        }

        // When attemptDue() will next say yes.
        [[nodiscard]] Clock::time_point nextAttempt() const noexcept
        {
            return _nextAttempt;
        }

        void succeeded() noexcept
        {
            _delay = _initial;
            _nextAttempt = {};
        }

    private:
        std::chrono::milliseconds _initial;
        std::chrono::milliseconds _max;
        std::chrono::milliseconds _delay;
        Clock::time_point _nextAttempt{};
    };
}
