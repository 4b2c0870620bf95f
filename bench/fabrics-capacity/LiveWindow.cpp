#include "LiveWindow.hpp"

#include <mxl/time.h>

namespace mxl::bench::capacity
{
    std::uint64_t firstIndexAtOrAfter(mxlRational const& rate, std::uint64_t timestampNs)
    {
        // mxlTimestampToIndex rounds to the nearest tick, which may lie before the timestamp.
        auto const nearest = ::mxlTimestampToIndex(&rate, timestampNs);
        return ::mxlIndexToTimestamp(&rate, nearest) < timestampNs ? nearest + 1 : nearest;
    }
}
