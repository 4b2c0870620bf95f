/*
 * Flows: rings of grains (video, ancillary data) or of samples (audio) in shared memory. Writers publish, any number
 * of readers in any process read, with no copy.
 */
#pragma once

#ifdef __cplusplus
#    include <cstddef>
#    include <cstdint>
extern "C"
{
#else
#    include <stdbool.h>
#    include <stddef.h>
#    include <stdint.h>
#endif

#include <mxl/flowinfo.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>

/*
 * A grain flagged invalid moves the ring forward while telling readers its payload is not usable; a reader repeats the
 * previous grain or inserts silence.
 */
#define MXL_GRAIN_FLAG_INVALID 0x00000001

/* For mxlFlowReaderGetGrainSlice: any committed state will do, or the whole grain (clamped to totalSlices). */
#define MXL_GRAIN_VALID_SLICES_ANY ((uint16_t)0)
#define MXL_GRAIN_VALID_SLICES_ALL ((uint16_t)UINT16_MAX)

    typedef struct mxlBufferSlice_t
    {
        void const* pointer;
        size_t size;
    } mxlBufferSlice;

    typedef struct mxlMutableBufferSlice_t
    {
        void* pointer;
        size_t size;
    } mxlMutableBufferSlice;

    /* A range of a ring: fragments[0] up to the end of the ring, then fragments[1] from its start (possibly empty). */
    typedef struct mxlWrappedBufferSlice_t
    {
        mxlBufferSlice fragments[2];
    } mxlWrappedBufferSlice;

    typedef struct mxlMutableWrappedBufferSlice_t
    {
        mxlMutableBufferSlice fragments[2];
    } mxlMutableWrappedBufferSlice;

    /* The same range in `count` channel rings, `stride` bytes apart. */
    typedef struct mxlWrappedMultiBufferSlice_t
    {
        mxlWrappedBufferSlice base;
        size_t stride;
        size_t count;
    } mxlWrappedMultiBufferSlice;

    typedef struct mxlMutableWrappedMultiBufferSlice_t
    {
        mxlMutableWrappedBufferSlice base;
        size_t stride;
        size_t count;
    } mxlMutableWrappedMultiBufferSlice;

    /* The 4096-byte header of every grain in shared memory; the payload follows at byte 8192 of the grain file. */
    typedef struct mxlGrainInfo_t
    {
        /* Always 1. */
        uint32_t version;
        /* Always 4096. */
        uint32_t size;
        /* Absolute index of the grain occupying this ring slot. */
        uint64_t index;
        /* MXL_GRAIN_FLAG_* bits. */
        uint32_t flags;
        /* Payload bytes. */
        uint32_t grainSize;
        uint16_t totalSlices;
        /* Slices committed so far; the grain is complete when it equals totalSlices. */
        uint16_t validSlices;
        uint8_t reserved[4068];
    } mxlGrainInfo;

    typedef struct mxlFlowReader_t* mxlFlowReader;
    typedef struct mxlFlowWriter_t* mxlFlowWriter;
    typedef struct mxlFlowSynchronizationGroup_t* mxlFlowSynchronizationGroup;

    /*
     * Creates the flow described by the NMOS JSON `flowDef`, or opens it if it exists (then `flowDef` and `options` are
     * ignored and `*created` is false). `options` is NULL or a JSON object with maxCommitBatchSizeHint and
     * maxSyncBatchSizeHint. `configInfo` and `created` may be NULL.
     */
    MXL_EXPORT mxlStatus mxlCreateFlowWriter(mxlInstance instance, char const* flowDef, char const* options, mxlFlowWriter* writer,
                                             mxlFlowConfigInfo* configInfo, bool* created);

    /* Deletes the flow when this was its last writer anywhere. */
    MXL_EXPORT mxlStatus mxlReleaseFlowWriter(mxlInstance instance, mxlFlowWriter writer);

    MXL_EXPORT mxlStatus mxlCreateFlowReader(mxlInstance instance, char const* flowId, char const* options, mxlFlowReader* reader);

    MXL_EXPORT mxlStatus mxlReleaseFlowReader(mxlInstance instance, mxlFlowReader reader);

    /* True when a live writer holds the flow (crashed writers leave inactive flows for mxlGarbageCollectFlows). */
    MXL_EXPORT mxlStatus mxlIsFlowActive(mxlInstance instance, char const* flowId, bool* isActive);

    /*
     * Copies the flow definition, NUL-terminated, into `buffer`. `*bufferSize` is set to the length needed (including
     * the NUL); a NULL or short buffer gives MXL_ERR_INVALID_ARG with the size filled in.
     */
    MXL_EXPORT mxlStatus mxlGetFlowDef(mxlInstance instance, char const* flowId, char* buffer, size_t* bufferSize);

    MXL_EXPORT mxlStatus mxlFlowReaderGetInfo(mxlFlowReader reader, mxlFlowInfo* info);
    MXL_EXPORT mxlStatus mxlFlowReaderGetConfigInfo(mxlFlowReader reader, mxlFlowConfigInfo* info);
    MXL_EXPORT mxlStatus mxlFlowReaderGetRuntimeInfo(mxlFlowReader reader, mxlFlowRuntimeInfo* info);

    /*
     * Discrete reading. Waits up to `timeoutNs` for grain `index` to have at least `minValidSlices` slices committed (or
     * to be flagged invalid). Returns MXL_ERR_OUT_OF_RANGE_TOO_EARLY if it did not arrive in time, TOO_LATE if it was
     * overwritten, MXL_ERR_FLOW_INVALID if the flow was deleted or re-created. `*payload` points into shared memory.
     */
    MXL_EXPORT mxlStatus mxlFlowReaderGetGrain(mxlFlowReader reader, uint64_t index, uint64_t timeoutNs, mxlGrainInfo* grain,
                                               uint8_t** payload);
    MXL_EXPORT mxlStatus mxlFlowReaderGetGrainSlice(mxlFlowReader reader, uint64_t index, uint16_t minValidSlices, uint64_t timeoutNs,
                                                    mxlGrainInfo* grain, uint8_t** payload);
    MXL_EXPORT mxlStatus mxlFlowReaderGetGrainNonBlocking(mxlFlowReader reader, uint64_t index, mxlGrainInfo* grain, uint8_t** payload);
    MXL_EXPORT mxlStatus mxlFlowReaderGetGrainSliceNonBlocking(mxlFlowReader reader, uint64_t index, uint16_t minValidSlices,
                                                               mxlGrainInfo* grain, uint8_t** payload);

    /* Discrete writing: open, fill the payload, commit (several times for partial grains). */
    MXL_EXPORT mxlStatus mxlFlowWriterGetGrainInfo(mxlFlowWriter writer, uint64_t index, mxlGrainInfo* grain);
    MXL_EXPORT mxlStatus mxlFlowWriterOpenGrain(mxlFlowWriter writer, uint64_t index, mxlGrainInfo* grain, uint8_t** payload);
    MXL_EXPORT mxlStatus mxlFlowWriterCancelGrain(mxlFlowWriter writer);
    MXL_EXPORT mxlStatus mxlFlowWriterCommitGrain(mxlFlowWriter writer, mxlGrainInfo const* grain);

    /*
     * Continuous reading and writing. A range (index, count) is the `count` samples ending at and including `index`.
     * At most half the ring (bufferLength / 2) can be read or written at once.
     */
    MXL_EXPORT mxlStatus mxlFlowReaderGetMaxReadLengthSamples(mxlFlowReader reader, size_t* maxReadLength);
    MXL_EXPORT mxlStatus mxlFlowReaderGetSamples(mxlFlowReader reader, uint64_t index, size_t count, uint64_t timeoutNs,
                                                 mxlWrappedMultiBufferSlice* payloadBuffersSlices);
    MXL_EXPORT mxlStatus mxlFlowReaderGetSamplesNonBlocking(mxlFlowReader reader, uint64_t index, size_t count,
                                                            mxlWrappedMultiBufferSlice* payloadBuffersSlices);

    MXL_EXPORT mxlStatus mxlFlowWriterGetMaxWriteLengthSamples(mxlFlowWriter writer, size_t* maxWriteLength);
    MXL_EXPORT mxlStatus mxlFlowWriterOpenSamples(mxlFlowWriter writer, uint64_t index, size_t count,
                                                  mxlMutableWrappedMultiBufferSlice* payloadBuffersSlices);
    MXL_EXPORT mxlStatus mxlFlowWriterCancelSamples(mxlFlowWriter writer);
    MXL_EXPORT mxlStatus mxlFlowWriterCommitSamples(mxlFlowWriter writer);

    /*
     * Synchronization groups: wait until every member flow has data for one timestamp, so that a consumer reads video,
     * audio and data of the same instant.
     */
    MXL_EXPORT mxlStatus mxlCreateFlowSynchronizationGroup(mxlInstance instance, mxlFlowSynchronizationGroup* group);
    MXL_EXPORT mxlStatus mxlReleaseFlowSynchronizationGroup(mxlInstance instance, mxlFlowSynchronizationGroup group);
    MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupAddReader(mxlFlowSynchronizationGroup group, mxlFlowReader reader);
    MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupAddPartialGrainReader(mxlFlowSynchronizationGroup group, mxlFlowReader reader,
                                                                          uint16_t minValidSlices);
    MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupRemoveReader(mxlFlowSynchronizationGroup group, mxlFlowReader reader);
    /* `timestamp` is TAI nanoseconds. */
    MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupWaitForDataAt(mxlFlowSynchronizationGroup group, uint64_t timestamp,
                                                                  uint64_t timeoutNs);

#ifdef __cplusplus
}
#endif
