// The C functions of time.h: argument checks, then the C++ timing code.
#include <mxl/time.h>

#include "flow/Timing.hpp"

extern "C" MXL_EXPORT uint64_t mxlGetTime(void)
{
    return mxl::timing::taiNowNs();
}

extern "C" MXL_EXPORT uint64_t mxlGetCurrentIndex(mxlRational const* editRate)
{
    if (!mxl::timing::isValidRate(editRate))
    {
        return MXL_UNDEFINED_INDEX;
    }
    auto const now = mxl::timing::taiNowNs();
    return now == 0 ? MXL_UNDEFINED_INDEX : mxl::timing::timestampToIndex(*editRate, now);
}

extern "C" MXL_EXPORT uint64_t mxlTimestampToIndex(mxlRational const* editRate, uint64_t timestamp)
{
    return editRate == nullptr ? MXL_UNDEFINED_INDEX : mxl::timing::timestampToIndex(*editRate, timestamp);
}

extern "C" MXL_EXPORT uint64_t mxlIndexToTimestamp(mxlRational const* editRate, uint64_t index)
{
    return editRate == nullptr ? MXL_UNDEFINED_INDEX : mxl::timing::indexToTimestamp(*editRate, index);
}

extern "C" MXL_EXPORT uint64_t mxlGetNsUntilIndex(uint64_t index, mxlRational const* editRate)
{
    return editRate == nullptr ? MXL_UNDEFINED_INDEX : mxl::timing::nsUntilIndex(*editRate, index);
}

extern "C" MXL_EXPORT void mxlSleepForNs(uint64_t ns)
{
    mxl::timing::sleepForNs(ns);
}

extern "C" MXL_EXPORT void mxlSleepUntil(uint64_t timestamp)
{
    mxl::timing::sleepUntilTaiNs(timestamp);
}
