#include "SourceTimes.hpp"

#include <mxl/time.h>

namespace mxl::gst
{
    std::optional<Span> SourceTimes::spanOf(GstElement* element, mxlRational const& rate, std::uint64_t index, std::uint64_t count)
    {
        auto const startTai = mxlIndexToTimestamp(&rate, index);
        auto const start = runningTimeOf(element, startTai);
        if (!start)
        {
            return std::nullopt;
        }
        return Span{*start, mxlIndexToTimestamp(&rate, index + count) - startTai};
    }

    void SourceTimes::reset()
    {
        _clockOrigin.reset();
        _freeOrigin.reset();
    }

    std::optional<GstClockTime> SourceTimes::runningTimeOf(GstElement* element, std::uint64_t tai)
    {
        auto origin = _clockOrigin.onClock(element);
        if (!origin)
        {
            if (!_freeOrigin)
            {
                _freeOrigin = static_cast<std::int64_t>(tai);
            }
            origin = _freeOrigin;
        }
        auto const running = static_cast<std::int64_t>(tai) - *origin;
        if (running < 0)
        {
            return std::nullopt;
        }
        return static_cast<GstClockTime>(running);
    }
}
