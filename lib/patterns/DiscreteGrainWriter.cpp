#include "DiscreteGrainWriter.hpp"

#include "Pacing.hpp"
#include <client/ClientError.hpp>
#include <common/StatusName.hpp>

#include <mxl/device.h>
#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>

namespace mxl::patterns
{
    namespace
    {
        void check(mxlStatus status, char const* call, std::uint64_t index, std::string const& kind)
        {
            if (status != MXL_STATUS_OK)
            {
                throw client::ClientError{client::ErrorKind::Failure,
                                          fmt::format("{} of {} grain {} failed: {}", call, kind, index, statusName(status))};
            }
        }
    }

    DiscreteGrainWriter::DiscreteGrainWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, std::uint32_t slicesPerCommit,
                                             std::uint64_t grainLimit, GrainPainter painter, WriterStats& stats)
        : _writer{writer}
        , _rate{config.common.grainRate}
        , _ringGrains{std::max<std::uint64_t>(1, config.discrete.grainCount)}
        , _grainLimit{grainLimit}
        , _painter{std::move(painter)}
        , _stats{stats}
        , _index{currentIndex(_rate) + 1}
    {
        mxlGrainInfo info{};
        check(mxlFlowWriterGetGrainInfo(_writer, _index, &info), "mxlFlowWriterGetGrainInfo", _index, _stats.kind);
        _totalSlices = std::max<std::uint32_t>(1, info.totalSlices);
        _slicesPerCommit = std::clamp<std::uint32_t>(slicesPerCommit, 1, _totalSlices);
        _batchesPerGrain = (_totalSlices + _slicesPerCommit - 1) / _slicesPerCommit;
        if (config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY)
        {
            _grainBytes = info.grainSize;
            _hostSlots.resize(_grainBytes * _ringGrains);
        }
    }

    std::uint64_t DiscreteGrainWriter::nextDeadlineNs() const
    {
        return grainPartDeadlineNs(_rate, _index, _batch, _batchesPerGrain);
    }

    bool DiscreteGrainWriter::finished() const
    {
        return _grainLimit != 0 && _grainsDone >= _grainLimit;
    }

    void DiscreteGrainWriter::run(std::uint64_t lateNs)
    {
        if (_batch == 0)
        {
            startGrain(lateNs);
            return;
        }
        commitBatch();
    }

    void DiscreteGrainWriter::skipUnreachableGrains()
    {
        // After a long stall, grains older than the ring would be overwritten before anyone could read them.
        auto const now = currentIndex(_rate);
        if (now < _index + _ringGrains)
        {
            return;
        }
        auto skipped = now - _ringGrains + 1 - _index;
        if (_grainLimit != 0)
        {
            skipped = std::min(skipped, _grainLimit - _grainsDone);
        }
        _index += skipped;
        _grainsDone += skipped;
        _stats.invalid += skipped;
    }

    void DiscreteGrainWriter::startGrain(std::uint64_t lateNs)
    {
        skipUnreachableGrains();
        if (finished())
        {
            return;
        }
        check(mxlFlowWriterOpenGrain(_writer, _index, &_grain, &_payload), "mxlFlowWriterOpenGrain", _index, _stats.kind);

        auto const grainStart = indexTimestampNs(_rate, _index);
        auto const nextGrainStart = indexTimestampNs(_rate, _index + 1);
        if (mxlGetTime() >= nextGrainStart)
        {
            _grain.flags = MXL_GRAIN_FLAG_INVALID;
            _grain.validSlices = _grain.totalSlices;
            check(mxlFlowWriterCommitGrain(_writer, &_grain), "mxlFlowWriterCommitGrain", _index, _stats.kind);
            ++_stats.invalid;
            finishGrain();
            return;
        }
        if (lateNs > (nextGrainStart - grainStart) / 2)
        {
            ++_stats.late;
        }
        // The slot may still hold the flags and slice count of the grain that occupied it before.
        _grain.flags = 0;
        _grain.validSlices = 0;
        commitBatch();
    }

    void DiscreteGrainWriter::commitBatch()
    {
        auto const firstSlice = _batch * _slicesPerCommit;
        auto const sliceCount = std::min(_slicesPerCommit, _totalSlices - firstSlice);
        if (_hostSlots.empty())
        {
            _painter(_index, firstSlice, sliceCount, std::span<std::uint8_t>{_payload, _grain.grainSize});
        }
        else
        {
            auto const slot = std::span<std::uint8_t>{_hostSlots}.subspan((_index % _ringGrains) * _grainBytes, _grainBytes);
            _painter(_index, firstSlice, sliceCount, slot);
            check(mxlFlowWriterCopyToDevice(_writer, _payload, slot.data(), slot.size()), "mxlFlowWriterCopyToDevice", _index, _stats.kind);
        }
        _grain.validSlices = static_cast<std::uint16_t>(firstSlice + sliceCount);
        check(mxlFlowWriterCommitGrain(_writer, &_grain), "mxlFlowWriterCommitGrain", _index, _stats.kind);
        if (++_batch == _batchesPerGrain)
        {
            ++_stats.written;
            finishGrain();
        }
    }

    void DiscreteGrainWriter::finishGrain()
    {
        ++_index;
        ++_grainsDone;
        _batch = 0;
    }
}
