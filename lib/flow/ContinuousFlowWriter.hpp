// Writes sample ranges of an audio flow, waking readers once per sync batch (docs/flow-behaviour.md, "Continuous
// flows").
#pragma once

#include "FlowWriter.hpp"
#include "SampleRing.hpp"

#include <cstdint>
#include <optional>

namespace mxl
{
    class ContinuousFlowWriter final : public FlowWriter
    {
    public:
        ContinuousFlowWriter(std::string canonicalId, std::filesystem::path flowDirectory, FlowFiles files);

        [[nodiscard]] std::size_t maxWriteLengthSamples() const noexcept
        {
            return config().continuous.bufferLength / 2;
        }

        // Exposes the `count` samples ending at `index` of every channel for writing.
        void openSamples(std::uint64_t index, std::size_t count, mxlMutableWrappedMultiBufferSlice& slice);

        void cancelSamples() noexcept
        {
            _open.reset();
        }

        // Publishes the open range; samples skipped since the previous head are zeroed so readers never take stale
        // audio from an earlier lap of the ring for current (#666).
        void commitSamples();

    private:
        // Wakes readers when this commit completes a sync batch (or overshoots into the next one).
        void signalSyncBatch(std::uint64_t head) noexcept;

        struct OpenRange
        {
            std::uint64_t index;
            std::size_t count;
        };

        SampleRing _ring;
        std::optional<OpenRange> _open;
        std::uint64_t _lastSyncBatch = 0;
    };
}
