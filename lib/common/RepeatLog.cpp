#include "RepeatLog.hpp"

#include "FailureKind.hpp"

#include <fmt/format.h>

#include <utility>

namespace mxl
{
    RepeatLog::RepeatLog(Clock::duration interval) noexcept
        : _interval{interval}
    {
    }

    std::optional<std::string> RepeatLog::admit(std::string const& line, Clock::time_point now)
    {
        auto const kind = failureKind(line);
        auto found = _kinds.find(kind);
        if (found == _kinds.end())
        {
            if (_kinds.size() >= maxKinds)
            {
                forgetQuietKinds(now);
                if (_kinds.size() >= maxKinds)
                {
                    return std::nullopt;
                }
            }
            _kinds.emplace(kind, Kind{now, 0});
            auto const seconds = std::chrono::duration_cast<std::chrono::seconds>(_interval).count();
            return fmt::format(" (repeats of this are logged at most every {} s)", seconds);
        }
        auto& seen = found->second;
        if (now - seen.logged < _interval)
        {
            ++seen.leftOut;
            return std::nullopt;
        }
        auto const leftOut = std::exchange(seen.leftOut, 0);
        seen.logged = now;
        return leftOut == 0 ? std::string{} : fmt::format(" ({} more like it since the last such line)", leftOut);
    }

    void RepeatLog::forgetQuietKinds(Clock::time_point now)
    {
        std::erase_if(_kinds, [&](auto const& entry) { return now - entry.second.logged >= _interval; });
    }
}
