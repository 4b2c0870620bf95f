// mxlsrc's audio side: reads the channel rings in blocks of samples-per-buffer samples from the start index, waiting
// on the flow for each block, and hands them out interleaved or non-interleaved as negotiated. A block rewritten before
// it could be read (the source fell half a ring behind) is lost and the reader goes to the newest block.
#pragma once

#include "ReadResult.hpp"

#include <mxl/flow.h>

#include <gst/audio/audio.h>

#include <atomic>
#include <cstdint>
#include <optional>

namespace mxl::gst
{
    class SampleReader
    {
    public:
        // `startIndex` 0: start with the block that ends at the head (at the current index while the flow is empty).
        SampleReader(mxlFlowReader reader, mxlFlowConfigInfo const& config, std::uint64_t samplesPerBuffer, std::uint64_t startIndex);

        // The negotiated layout and sample format.
        void setInfo(GstAudioInfo const& info);

        ReadResult next(std::atomic<bool> const& flushing);

    private:
        mxlFlowReader _reader;
        mxlRational _rate;
        std::uint64_t _samples;
        std::uint64_t _startIndex;
        GstAudioInfo _info{};
        std::optional<std::uint64_t> _next;

        std::uint64_t headIndex() const;
        GstBuffer* copy(mxlWrappedMultiBufferSlice const& slices) const;
    };
}
