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
        // `startIndex` 0: start with the block that ends at the head or, where no writer has committed yet, with the
        // block right after the first commit.
        SampleReader(mxlFlowReader reader, std::uint64_t samplesPerBuffer, std::uint64_t startIndex);

        // The negotiated layout and sample format.
        void setInfo(GstAudioInfo const& info);

        ReadResult next(std::atomic<bool> const& flushing);

    private:
        mxlFlowReader _reader;
        std::uint64_t _samples;
        std::uint64_t _startIndex;
        GstAudioInfo _info{};
        std::optional<std::uint64_t> _next;
        // The flow had no commit when reading began.
        bool _waitedForWriter = false;

        // Where reading begins (_next); false while the flow has no commit.
        bool begin();
        GstBuffer* copy(mxlWrappedMultiBufferSlice const& slices) const;
    };
}
