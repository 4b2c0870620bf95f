#include "GrainWriter.hpp"

#include "StatusCheck.hpp"

#include <mxl/time.h>

#include <algorithm>
#include <cstring>

namespace mxl::gst
{
    GrainWriter::GrainWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, SinkCounters& counters)
        : _writer{writer}
        , _rate{config.common.grainRate}
        , _grainCount{std::max<std::uint64_t>(1, config.discrete.grainCount)}
        , _sliceBytes{config.discrete.sliceSizes[0]}
        , _counters{counters}
    {
    }

    void GrainWriter::write(std::optional<std::uint64_t> index, GstVideoFrame const& frame, bool paced)
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
        commit(target, frame);
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

    void GrainWriter::commit(std::uint64_t index, GstVideoFrame const& frame)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        checkStatus(mxlFlowWriterOpenGrain(_writer, index, &info, &payload), "mxlFlowWriterOpenGrain", index);
        // A grain is one line per slice; GStreamer's v210 lines are the same 128-byte-aligned size unless a buffer
        // carries its own stride (video meta), hence the copy line by line.
        auto const* const source = static_cast<std::uint8_t const*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
        auto const stride = static_cast<std::size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
        auto const lineBytes = std::min<std::size_t>(_sliceBytes, stride);
        auto const lines = std::min<std::size_t>(info.totalSlices, GST_VIDEO_FRAME_HEIGHT(&frame));
        for (std::size_t line = 0; line < lines; ++line)
        {
            std::memcpy(payload + line * _sliceBytes, source + line * stride, lineBytes);
        }
        info.flags = 0;
        info.validSlices = info.totalSlices;
        checkStatus(mxlFlowWriterCommitGrain(_writer, &info), "mxlFlowWriterCommitGrain", index);
    }
}
