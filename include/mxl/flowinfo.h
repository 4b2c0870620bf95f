/*
 * The 2048-byte flow description at the start of every flow's `data` file. Every size and offset here is part of the
 * shared-memory contract with other MXL implementations and is checked by static_assert in lib/flow/FlowLayout.hpp.
 */
#pragma once

#ifdef __cplusplus
#    include <cstdint>
extern "C"
{
#else
#    include <stdint.h>
#endif

#include <mxl/dataformat.h>
#include <mxl/rational.h>

#define MXL_MAX_PLANES_PER_GRAIN 4

    typedef enum mxlPayloadLocation
    {
        MXL_PAYLOAD_LOCATION_HOST_MEMORY = 0,
        MXL_PAYLOAD_LOCATION_DEVICE_MEMORY = 1,
    } mxlPayloadLocation;

    typedef struct mxlCommonFlowConfigInfo_t
    {
        /* Flow UUID in RFC 4122 byte order. */
        uint8_t id[16];
        /* An mxlDataFormat. */
        uint32_t format;
        uint32_t flags;
        /* Grain rate (video, data) or sample rate (audio), reduced; the field rate for interlaced video. */
        mxlRational grainRate;
        /* Slices (discrete) or samples (continuous) a writer commits at most at once. */
        uint32_t maxCommitBatchSizeHint;
        /* Slices or samples after which readers are woken; a multiple of the commit hint. */
        uint32_t maxSyncBatchSizeHint;
        /* An mxlPayloadLocation. */
        uint32_t payloadLocation;
        /* -1 for host memory. */
        int32_t deviceIndex;
        uint8_t reserved[72];
    } mxlCommonFlowConfigInfo;

    typedef struct mxlDiscreteFlowConfigInfo_t
    {
        /* Bytes of one slice (a line of video, a byte of data) in each plane; 0 for absent planes. */
        uint32_t sliceSizes[MXL_MAX_PLANES_PER_GRAIN];
        uint32_t grainCount;
        uint8_t reserved[44];
    } mxlDiscreteFlowConfigInfo;

    typedef struct mxlContinuousFlowConfigInfo_t
    {
        uint32_t channelCount;
        /* Samples in each channel's ring. */
        uint32_t bufferLength;
        uint8_t reserved[56];
    } mxlContinuousFlowConfigInfo;

    typedef struct mxlFlowConfigInfo_t
    {
        mxlCommonFlowConfigInfo common;
        union
        {
            mxlDiscreteFlowConfigInfo discrete;
            mxlContinuousFlowConfigInfo continuous;
        };
    } mxlFlowConfigInfo;

    typedef struct mxlFlowRuntimeInfo_t
    {
        /* Index of the newest committed grain or sample; 0 until the first commit. */
        uint64_t headIndex;
        /* TAI nanoseconds. */
        uint64_t lastWriteTime;
        /* TAI nanoseconds. */
        uint64_t lastReadTime;
        uint8_t reserved[40];
    } mxlFlowRuntimeInfo;

    typedef struct mxlFlowInfo_t
    {
        /* Always 1. */
        uint32_t version;
        /* Always 2048. */
        uint32_t size;
        mxlFlowConfigInfo config;
        mxlFlowRuntimeInfo runtime;
        uint8_t reserved[1784];
    } mxlFlowInfo;

#ifdef __cplusplus
}
#endif
