/*
 * TAI time and the mapping between time and grain or sample indices. Index 0 is at the SMPTE ST 2059 epoch; an index
 * is the nearest edit-rate tick to a timestamp.
 */
#pragma once

#ifdef __cplusplus
#    include <cstdint>
extern "C"
{
#else
#    include <stdint.h>
#endif

#include <mxl/platform.h>
#include <mxl/rational.h>

    /* TAI nanoseconds since 1970-01-01 00:00:00 TAI; 0 on failure. */
    MXL_EXPORT uint64_t mxlGetTime(void);

    /* The index of the tick nearest to now at `editRate`, or MXL_UNDEFINED_INDEX for an unusable rate. */
    MXL_EXPORT uint64_t mxlGetCurrentIndex(mxlRational const* editRate);

    MXL_EXPORT uint64_t mxlTimestampToIndex(mxlRational const* editRate, uint64_t timestamp);

    MXL_EXPORT uint64_t mxlIndexToTimestamp(mxlRational const* editRate, uint64_t index);

    /* Nanoseconds from now until `index` starts, 0 if it has started. */
    MXL_EXPORT uint64_t mxlGetNsUntilIndex(uint64_t index, mxlRational const* editRate);

    MXL_EXPORT void mxlSleepForNs(uint64_t ns);

    /* Sleeps until the absolute TAI time `timestamp`. */
    MXL_EXPORT void mxlSleepUntil(uint64_t timestamp);

#ifdef __cplusplus
}
#endif
