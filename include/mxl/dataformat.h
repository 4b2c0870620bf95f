/* The three media kinds a flow can carry. */
#pragma once

#include <mxl/platform.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Payload bytes of one video/smpte291 (ancillary data) grain. */
#define MXL_DATA_FORMAT_GRAIN_SIZE 4096

    typedef enum mxlDataFormat
    {
        MXL_DATA_FORMAT_UNSPECIFIED = 0,
        MXL_DATA_FORMAT_VIDEO = 1,
        MXL_DATA_FORMAT_AUDIO = 2,
        MXL_DATA_FORMAT_DATA = 3,
    } mxlDataFormat;

/*
 * Header-only helpers. They are `static inline` in C (rather than the SDK's plain C99 `inline`) so that a C program
 * built at -O0 links without an external definition; the calling convention is unchanged.
 */
#ifdef __cplusplus
#    define MXL_DATAFORMAT_HELPER inline
#else
#    define MXL_DATAFORMAT_HELPER static inline
#endif

    MXL_DATAFORMAT_HELPER int mxlIsValidDataFormat(int format)
    {
        return format == MXL_DATA_FORMAT_VIDEO || format == MXL_DATA_FORMAT_AUDIO || format == MXL_DATA_FORMAT_DATA;
    }

    MXL_DATAFORMAT_HELPER int mxlIsSupportedDataFormat(int format)
    {
        return mxlIsValidDataFormat(format);
    }

    MXL_DATAFORMAT_HELPER int mxlIsDiscreteDataFormat(int format)
    {
        return format == MXL_DATA_FORMAT_VIDEO || format == MXL_DATA_FORMAT_DATA;
    }

    MXL_DATAFORMAT_HELPER int mxlIsContinuousDataFormat(int format)
    {
        return format == MXL_DATA_FORMAT_AUDIO;
    }

#undef MXL_DATAFORMAT_HELPER

#ifdef __cplusplus
}
#endif
