// The files two processes map for one flow, stated once (the shared-memory contract with other MXL implementations).
// Readers and writers of every library include this; nothing else computes an offset into a flow file by hand.
//
//   <domain>/<uuid>.mxl-flow/data            FlowData (2064 bytes)
//   <domain>/<uuid>.mxl-flow/grains/data.<i> GrainHeader (8192 bytes) then the payload (discrete flows)
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
    static_assert(std::has_unique_object_representations_v<mxlFlowInfo>);
    static_assert(std::has_unique_object_representations_v<mxlGrainInfo>);
}
