// mxlsink's audio side: each buffer's samples go into the channel rings at the sample indices its time names, split
// into writes the library takes at once (half a ring at most). Timestamps of consecutive buffers rarely land on
// exactly consecutive sample indices (rounding to nanoseconds), so a buffer within the alignment threshold of where
// the last one ended continues it; beyond it, the gap is skipped (the library fills it with silence) or, going back,
// the buffer is dropped.
#pragma once

#include "SinkCounters.hpp"

#include <mxl/flow.h>

#include <gst/audio/audio.h>

#include <cstdint>
#include <optional>

namespace mxl::gst
{
    class SampleWriter
    {
    public:
        SampleWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, std::uint32_t sampleBytes, SinkCounters& counters);

        // Writes `audio` with its first sample at `firstIndex`, or right after the last buffer when it has no time.
        // `paced`: the index follows TAI, so lateness is judged against the current index.
        void write(std::optional<std::uint64_t> firstIndex, GstAudioBuffer const& audio, bool paced);

    private:
        mxlFlowWriter _writer;
        mxlRational _rate;
        std::uint32_t _sampleBytes;
        std::uint64_t _maxWriteSamples = 0;
        std::uint64_t _alignmentSamples;
        SinkCounters& _counters;
        std::optional<std::uint64_t> _next;

        void writeChunk(GstAudioBuffer const& audio, std::uint64_t bufferOffset, std::uint64_t count, std::uint64_t lastIndex);
    };
}
