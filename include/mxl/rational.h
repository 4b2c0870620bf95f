/* Exact rational numbers for grain and sample rates. */
#pragma once

#ifdef __cplusplus
#    include <cstdint>
extern "C"
{
#else
#    include <stdint.h>
#endif

/* Returned by index computations when the rate or time is unusable. */
#define MXL_UNDEFINED_INDEX UINT64_MAX

    typedef struct mxlRational_t
    {
        int64_t numerator;
        int64_t denominator;
    } mxlRational;

#ifdef __cplusplus
}
#endif
