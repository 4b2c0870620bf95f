#include "ContinuousFlowWriter.hpp"

#include "common/SharedAtomics.hpp"

#include "common/Status.hpp"

#include <algorithm>

namespace mxl
{
    ContinuousFlowWriter::ContinuousFlowWriter(std::string canonicalId, std::filesystem::path flowDirectory, FlowFiles files)
        : FlowWriter{std::move(canonicalId), std::move(flowDirectory), std::move(files)}
        , _ring{this->files().channels(), config().continuous.channelCount, config().continuous.bufferLength,
                this->files().sampleWordBytes()}
    {
    }

    void ContinuousFlowWriter::openSamples(std::uint64_t index, std::size_t count, mxlMutableWrappedMultiBufferSlice& slice)
    {
        if (count == 0 || count > maxWriteLengthSamples())
        {
            fail(MXL_ERR_INVALID_ARG, "flow {}: opening {} samples at index {}, expected a count of 1 to {} (half the ring)", id(), count,
                 index, maxWriteLengthSamples());
        }
        auto const range = _ring.range(index, count);
        slice.base.fragments[0] = {range.first, range.firstBytes};
        slice.base.fragments[1] = {range.second, range.secondBytes};
        slice.stride = range.strideBytes;
        slice.count = _ring.channelCount;
        _open = OpenRange{index, count};
    }

    void ContinuousFlowWriter::commitSamples()
    {
        if (!_open)
        {
            fail(MXL_ERR_INVALID_ARG, "flow {}: committing samples but no range is open", id());
        }
        auto const [index, count] = *_open;
        _open.reset();
        auto const previousHead = loadAcquire(data().info.runtime.headIndex);
        auto const firstWritten = index - count + 1;
        if (previousHead != 0 && firstWritten > previousHead + 1)
        {
            // Only the last lap before the new range can still be read; anything older is already gone.
            auto const maxGap = std::uint64_t{_ring.bufferLength} - count;
            auto const gapStart = std::max(previousHead + 1, firstWritten - std::min(maxGap, firstWritten));
            if (gapStart < firstWritten)
            {
                _ring.zero(gapStart, firstWritten - 1);
            }
        }
        advanceHead(index);
        signalSyncBatch(index);
    }

    void ContinuousFlowWriter::signalSyncBatch(std::uint64_t head) noexcept
    {
        auto const& common = config().common;
        auto const syncSamples = std::uint64_t{std::max(common.maxSyncBatchSizeHint, 1U)};
        auto const commitSamples = std::uint64_t{std::max(common.maxCommitBatchSizeHint, 1U)};
        // A batch counts as complete once fewer than one commit's worth of samples is missing from it.
        auto const early = syncSamples >= commitSamples ? syncSamples - commitSamples : 0;
        auto const batch = head / syncSamples;
        if (batch < _lastSyncBatch)
        {
            return;
        }
        if (batch == _lastSyncBatch)
        {
            if (head % syncSamples <= early)
            {
                return;
            }
            _lastSyncBatch = batch + 1;
        }
        else
        {
            _lastSyncBatch = batch;
        }
        wakeReaders();
    }
}
