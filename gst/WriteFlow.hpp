// The flow mxlsink writes, from set_caps to stop, and how one buffer goes into it: a v210 frame line by line into a
// grain, a data buffer as the grain's RFC 8331 payload (meta/x-st-2038 repacked first), audio samples into the ring.
#pragma once

#include "FlowCaps.hpp"
#include "GrainWriter.hpp"
#include "SampleWriter.hpp"

#include <client/OwnedHandle.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <gst/audio/audio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <optional>

namespace mxl::gst
{
    struct WriteFlow
    {
        mxlInstance instance = nullptr;
        // Declared before the grain and sample writers, so that it is released after them.
        client::OwnedHandle<mxlInstance, mxlFlowWriter, ::mxlReleaseFlowWriter> writer;
        FlowFormat format;
        GstVideoInfo videoInfo{};
        GstAudioInfo audioInfo{};
        std::optional<GrainWriter> grains;
        // Data as meta/x-st-2038: each buffer's packets are repacked as the grain's RFC 8331 payload.
        bool st2038 = false;
        std::optional<SampleWriter> samples;

        WriteFlow() = default;
        WriteFlow(WriteFlow const&) = delete;
        WriteFlow& operator=(WriteFlow const&) = delete;

        // Writes `buffer` at grain (audio: sample) `index`, or after the last one without an index; `paced`: the index
        // follows TAI. ElementFailure for a buffer that stops the pipeline; `element` posts the warnings of the others.
        void write(GstElement* element, GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced);

    private:
        void writeVideo(GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced);
        void writeData(GstElement* element, GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced);
        void writeAudio(GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced);
    };
}
