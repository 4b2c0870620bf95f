#include "GrainWriter.hpp"

#include "StatusCheck.hpp"

#include <mxl/time.h>

#include <algorithm>

namespace mxl::gst
{
    GrainWriter::GrainWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, SinkCounters& counters)
        : _writer{writer}
        , _rate{config.common.grainRate}
        , _grainCount{std::max<std::uint64_t>(1, config.discrete.grainCount)}
        , _counters{counters}
    {
    }

    void GrainWriter::write(std::optional<std::uint64_t> index, bool paced, Fill const& fill)
    {
        auto const target = index.value_or(_last ? *_last + 1 : mxlGetCurrentIndex(&_rate));
        if (paced && target + _grainCount <= mxlGetCurrentIndex(&_rate))
        {
            ++_counters.late;
            return;
        }
        if (_last && target <= *_last)
        {
            ++_counters.dropped;
            return;
        }
        if (_last)
        {
            invalidate(*_last + 1, target);
        }
        if (!fill)
        {
            invalidate(target, target + 1);
            _last = target;
            return;
        }
        commit(target, fill);
        _last = target;
        ++_counters.written;
    }

    void GrainWriter::invalidate(std::uint64_t first, std::uint64_t end)
    {
        _counters.skipped += end - first;
        // Only the slots that stay in the ring once `end` is written can be read; older skipped indices need no grain.
        first = std::max(first, end - std::min(end, _grainCount - 1));
        for (auto index = first; index < end; ++index)
        {
            mxlGrainInfo info;
            std::uint8_t* payload = nullptr;
            checkStatus(mxlFlowWriterOpenGrain(_writer, index, &info, &payload), "mxlFlowWriterOpenGrain", index);
            info.flags = MXL_GRAIN_FLAG_INVALID;
            info.validSlices = info.totalSlices;
            checkStatus(mxlFlowWriterCommitGrain(_writer, &info), "mxlFlowWriterCommitGrain", index);
        }
    }

    void GrainWriter::commit(std::uint64_t index, Fill const& fill)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        checkStatus(mxlFlowWriterOpenGrain(_writer, index, &info, &payload), "mxlFlowWriterOpenGrain", index);
        fill(payload, info);
        info.flags = 0;
        info.validSlices = info.totalSlices;
        checkStatus(mxlFlowWriterCommitGrain(_writer, &info), "mxlFlowWriterCommitGrain", index);
    }
}
