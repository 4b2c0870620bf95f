#include "ContinuousFlowReader.hpp"

#include "common/Status.hpp"

namespace mxl
{
    ContinuousFlowReader::ContinuousFlowReader(Domain const& domain, std::string canonicalId, FlowFiles files)
        : FlowReader{domain, std::move(canonicalId), std::move(files)}
        , _ring{this->files().channels(), info().config.continuous.channelCount, info().config.continuous.bufferLength,
                this->files().sampleWordBytes()}
    {
    }

    mxlStatus ContinuousFlowReader::getSamples(std::uint64_t index, std::size_t count, std::uint64_t timeoutNs,
                                               mxlWrappedMultiBufferSlice& slice) const
    {
        if (count == 0)
        {
            fail(MXL_ERR_INVALID_ARG, "flow {}: reading 0 samples at index {}, expected a count of 1 to {}", id(), index,
                 maxReadLengthSamples());
        }
        if (count > maxReadLengthSamples())
        {
            return MXL_ERR_OUT_OF_RANGE_TOO_LATE;
        }
        return checkValidity(waitFor(timing::deadlineAfterNs(timeoutNs), [&] { return tryGetSamples(index, count, slice); }));
    }

    mxlStatus ContinuousFlowReader::waitForHead(std::uint64_t index, std::uint64_t deadlineNs) const
    {
        return checkValidity(waitFor(deadlineNs, [&] { return index > headIndex() ? MXL_ERR_OUT_OF_RANGE_TOO_EARLY : MXL_STATUS_OK; }));
    }

    mxlStatus ContinuousFlowReader::tryGetSamples(std::uint64_t index, std::size_t count, mxlWrappedMultiBufferSlice& slice) const
    {
        auto const head = headIndex();
        if (index > head)
        {
            return MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
        }
        // The other half of the ring belongs to the writer, which may be filling it right now.
        auto const half = maxReadLengthSamples();
        auto const oldest = head > half ? head - half : 0;
        if (index < oldest || index - oldest < count)
        {
            return MXL_ERR_OUT_OF_RANGE_TOO_LATE;
        }
        auto const range = _ring.range(index, count);
        slice.base.fragments[0] = {range.first, range.firstBytes};
        slice.base.fragments[1] = {range.second, range.secondBytes};
        slice.stride = range.strideBytes;
        slice.count = _ring.channelCount;
        return MXL_STATUS_OK;
    }
}
