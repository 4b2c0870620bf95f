// Reads sample ranges of an audio flow (docs/flow-behaviour.md, "Continuous flows"): only the half of the ring behind
// the head is readable.
#pragma once

#include "FlowReader.hpp"
#include "SampleRing.hpp"

namespace mxl
{
    class ContinuousFlowReader final : public FlowReader
    {
    public:
        ContinuousFlowReader(Domain const& domain, std::string canonicalId, FlowFiles files);

        [[nodiscard]] std::size_t maxReadLengthSamples() const noexcept
        {
            return info().config.continuous.bufferLength / 2;
        }

        // Waits until the `count` samples ending at `index` are committed; TOO_LATE when they are (or would be)
        // outside the readable half ring.
        mxlStatus getSamples(std::uint64_t index, std::size_t count, std::uint64_t timeoutNs, mxlWrappedMultiBufferSlice& slice) const;

        // Waits until the head reaches `index` (synchronization groups).
        mxlStatus waitForHead(std::uint64_t index, std::uint64_t deadlineNs) const;

    private:
        mxlStatus tryGetSamples(std::uint64_t index, std::size_t count, mxlWrappedMultiBufferSlice& slice) const;

        SampleRing _ring;
    };
}
