#include "SampleCursor.hpp"

#include <common/StatusName.hpp>

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>

namespace mxl::bridge
{
    namespace
    {
        // The longest read() sleeps for pacing or waits for the source: signals and watchdog pings come first.
        constexpr std::uint64_t maxWaitNs = 100'000'000;
    }

    SampleCursor::SampleCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId)
        : SourceCursor{TransferUnit::Batch, reader, flow, std::move(flowId)}
        , _batchSamples{std::max<std::uint32_t>(flow.common.maxCommitBatchSizeHint, 1)}
    {
    }

    std::uint64_t SampleCursor::newestSampleIndex() const
    {
        mxlFlowRuntimeInfo runtime{};
        if (::mxlFlowReaderGetRuntimeInfo(_reader, &runtime) == MXL_STATUS_OK && runtime.headIndex != 0)
        {
            return runtime.headIndex;
        }
        return ::mxlGetCurrentIndex(&_rate);
    }

    std::uint64_t SampleCursor::startAtPresent()
    {
        auto const newest = newestSampleIndex();
        auto const skipped = _head != 0 && newest > _head ? (newest - _head + _batchSamples - 1) / _batchSamples : 0;
        _head = std::max(newest, _head);
        return skipped;
    }

    void SampleCursor::forgetPosition() noexcept
    {
        _head = 0;
    }

    SourceCursor::Read SampleCursor::read()
    {
        auto const dueNs = ::mxlIndexToTimestamp(&_rate, _head);
        auto const nowNs = ::mxlGetTime();
        if (dueNs > nowNs + maxWaitNs)
        {
            // A source ahead of the clock: wait in steps, coming back to the service loop between them.
            ::mxlSleepUntil(nowNs + maxWaitNs);
            return {Outcome::NotDue, {}, 0};
        }
        ::mxlSleepUntil(dueNs);
        // A live source commits a batch a little after its last sample's time; wait for it about one more batch.
        auto const timeoutNs = std::clamp<std::uint64_t>(2 * periodNs(_batchSamples), 10'000'000, maxWaitNs);
        mxlWrappedMultiBufferSlice slices{};
        auto const status = ::mxlFlowReaderGetSamples(_reader, _head, _batchSamples, timeoutNs, &slices);
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
        {
            // The source's ring moved past the batch: resume at its newest batch, counting every batch skipped.
            auto const next = std::max(newestSampleIndex(), _head + _batchSamples);
            Read gone{Outcome::Gone, {}, (next - _head + _batchSamples - 1) / _batchSamples};
            _head = next;
            return gone;
        }
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
        {
            return {Outcome::NotDue, {}, 0};
        }
        if (status != MXL_STATUS_OK)
        {
            failRead(fmt::format("samples up to {} (count {})", _head, _batchSamples), status);
        }
        auto const bytes = (slices.base.fragments[0].size + slices.base.fragments[1].size) * slices.count;
        return {Outcome::Ready, SourceUnit{_head, 0, 0, true, _batchSamples, bytes}, 0};
    }

    void SampleCursor::advance(bool)
    {
        _head += _batchSamples;
    }
}
