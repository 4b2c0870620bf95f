// The files two processes map for one flow, stated once (the shared-memory contract with other MXL implementations).
// Readers and writers of every library include this; nothing else computes an offset into a flow file by hand.
//
//   <domain>/<uuid>.mxl-flow/data            FlowData (2064 bytes)
//   <domain>/<uuid>.mxl-flow/grains/data.<i> GrainHeader (8192 bytes) then the payload (discrete flows); the header
//                                            alone for device flows, whose payloads are in device memory
//   <domain>/<uuid>.mxl-flow/device          DeviceRecord (160 bytes): where a device flow's payloads are (ours only)
//   <domain>/<uuid>.mxl-flow/channels        channelCount planar rings of bufferLength samples (continuous flows)
#pragma once

#include <mxl/flow.h>
#include <mxl/flowinfo.h>

#include <cstddef>
#include <cstdint>
#include <sys/types.h>
#include <type_traits>

namespace mxl::layout
{
    inline constexpr std::uint32_t flowInfoVersion = 1;
    inline constexpr std::uint32_t grainInfoVersion = 1;

    // The payload of every grain starts here in its grain file: page aligned, after the header and its padding.
    inline constexpr std::size_t grainPayloadOffset = 8192;

    // Writer-private state after the flow info in the `data` file.
    struct FlowState
    {
        // st_ino of the data file when the flow was created: a reader whose flow was deleted and re-created sees a
        // different inode at the same path.
        ino_t inode;
        // Bumped after every publication; readers futex-wait on it (FUTEX_WAIT on a shared mapping).
        std::uint32_t syncCounter;
    };

    struct FlowData
    {
        mxlFlowInfo info;
        FlowState state;
    };

    struct GrainHeader
    {
        mxlGrainInfo info;
        std::uint8_t padding[grainPayloadOffset - sizeof(mxlGrainInfo)];
    };

    inline constexpr std::uint32_t deviceRecordMagic = 0x44'4c'58'4d; // "MXLD" in the file's (little-endian) bytes
    inline constexpr std::uint32_t deviceRecordVersion = 1;
    // Each grain's payload starts at a multiple of this in the device ring (beyond the 256 bytes cudaMalloc aligns
    // to, so that a grain's planes stay aligned for vectorised kernels whatever the grain size).
    inline constexpr std::uint64_t deviceGrainAlignmentBytes = 4096;

    // The `device` file of a device flow: the writer's ring of payloads in device memory, published for other
    // processes (docs/memory-layout.md). Written once, before the flow is renamed into place; never changed.
    struct DeviceRecord
    {
        std::uint32_t magic;
        std::uint32_t version;
        // The writer's CUDA ordinal; a reader finds its own ordinal for the same GPU by pciBusId.
        std::int32_t deviceIndex;
        std::uint32_t grainCount;
        // NUL terminated, as cudaDeviceGetPCIBusId writes it: "0000:65:00.0".
        char pciBusId[32];
        std::uint8_t uuid[16];
        // cudaIpcMemHandle_t of the whole ring.
        std::uint8_t ipcHandle[64];
        std::uint64_t allocationBytes;
        // Grain slot k's payload is at k × grainStrideBytes; the stride is the grain size rounded up to the alignment.
        std::uint64_t grainStrideBytes;
        std::uint64_t grainSizeBytes;
        // The creating writer's process id, for people and tools: whether a reader is in that process is decided by
        // the IPC handle (lib/device/DeviceRing.cpp), which pid namespaces cannot confuse.
        std::int32_t writerProcessId;
        std::uint32_t reserved;
    };

    static_assert(sizeof(mxlRational) == 16);
    static_assert(sizeof(mxlCommonFlowConfigInfo) == 128);
    static_assert(offsetof(mxlCommonFlowConfigInfo, format) == 16);
    static_assert(offsetof(mxlCommonFlowConfigInfo, flags) == 20);
    static_assert(offsetof(mxlCommonFlowConfigInfo, grainRate) == 24);
    static_assert(offsetof(mxlCommonFlowConfigInfo, maxCommitBatchSizeHint) == 40);
    static_assert(offsetof(mxlCommonFlowConfigInfo, maxSyncBatchSizeHint) == 44);
    static_assert(offsetof(mxlCommonFlowConfigInfo, payloadLocation) == 48);
    static_assert(offsetof(mxlCommonFlowConfigInfo, deviceIndex) == 52);
    static_assert(offsetof(mxlCommonFlowConfigInfo, reserved) == 56);
    static_assert(sizeof(mxlDiscreteFlowConfigInfo) == 64);
    static_assert(offsetof(mxlDiscreteFlowConfigInfo, grainCount) == 16);
    static_assert(sizeof(mxlContinuousFlowConfigInfo) == 64);
    static_assert(offsetof(mxlContinuousFlowConfigInfo, bufferLength) == 4);
    static_assert(sizeof(mxlFlowConfigInfo) == 192);
    static_assert(offsetof(mxlFlowConfigInfo, discrete) == 128);
    static_assert(offsetof(mxlFlowConfigInfo, continuous) == 128);
    static_assert(sizeof(mxlFlowRuntimeInfo) == 64);
    static_assert(offsetof(mxlFlowRuntimeInfo, lastWriteTime) == 8);
    static_assert(offsetof(mxlFlowRuntimeInfo, lastReadTime) == 16);
    static_assert(sizeof(mxlFlowInfo) == 2048);
    static_assert(offsetof(mxlFlowInfo, config) == 8);
    static_assert(offsetof(mxlFlowInfo, runtime) == 200);
    static_assert(offsetof(mxlFlowInfo, reserved) == 264);
    static_assert(sizeof(mxlGrainInfo) == 4096);
    static_assert(offsetof(mxlGrainInfo, index) == 8);
    static_assert(offsetof(mxlGrainInfo, flags) == 16);
    static_assert(offsetof(mxlGrainInfo, grainSize) == 20);
    static_assert(offsetof(mxlGrainInfo, totalSlices) == 24);
    static_assert(offsetof(mxlGrainInfo, validSlices) == 26);
    static_assert(sizeof(mxlBufferSlice) == 16);
    static_assert(sizeof(mxlWrappedBufferSlice) == 32);
    static_assert(sizeof(mxlWrappedMultiBufferSlice) == 48);
    static_assert(offsetof(mxlWrappedMultiBufferSlice, stride) == 32);
    static_assert(offsetof(mxlWrappedMultiBufferSlice, count) == 40);
    static_assert(sizeof(mxlMutableWrappedMultiBufferSlice) == 48);
    static_assert(offsetof(FlowData, state) == 2048);
    static_assert(offsetof(FlowData, state) + offsetof(FlowState, syncCounter) == 2056);
    static_assert(sizeof(FlowData) == 2064);
    static_assert(sizeof(GrainHeader) == grainPayloadOffset);
    static_assert(offsetof(DeviceRecord, deviceIndex) == 8);
    static_assert(offsetof(DeviceRecord, grainCount) == 12);
    static_assert(offsetof(DeviceRecord, pciBusId) == 16);
    static_assert(offsetof(DeviceRecord, uuid) == 48);
    static_assert(offsetof(DeviceRecord, ipcHandle) == 64);
    static_assert(offsetof(DeviceRecord, allocationBytes) == 128);
    static_assert(offsetof(DeviceRecord, grainStrideBytes) == 136);
    static_assert(offsetof(DeviceRecord, grainSizeBytes) == 144);
    static_assert(offsetof(DeviceRecord, writerProcessId) == 152);
    static_assert(sizeof(DeviceRecord) == 160);
    static_assert(std::has_unique_object_representations_v<DeviceRecord>);
    static_assert(std::has_unique_object_representations_v<mxlFlowInfo>);
    static_assert(std::has_unique_object_representations_v<mxlGrainInfo>);
}
