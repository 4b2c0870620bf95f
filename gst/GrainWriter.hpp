// mxlsink's video side: each frame goes into the grain its index names. Indices skipped between two frames are
// committed as invalid grains so that readers move on instead of waiting for grains that will never come; a frame
// whose index is already more than a ring old, or not newer than the last one written, is counted and not written.
#pragma once

#include "SinkCounters.hpp"

#include <mxl/flow.h>

#include <gst/video/video.h>

#include <cstdint>
#include <optional>

namespace mxl::gst
{
    class GrainWriter
    {
    public:
        GrainWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, SinkCounters& counters);

        // Writes `frame` as grain `index`, or as the grain after the last one when the frame has no time. `paced`: the
        // index follows TAI, so lateness is judged against the current index.
        void write(std::optional<std::uint64_t> index, GstVideoFrame const& frame, bool paced);

    private:
        mxlFlowWriter _writer;
        mxlRational _rate;
        std::uint64_t _grainCount;
        std::uint32_t _sliceBytes;
        SinkCounters& _counters;
        std::optional<std::uint64_t> _last;

        void invalidate(std::uint64_t first, std::uint64_t end);
        void commit(std::uint64_t index, GstVideoFrame const& frame);
    };
}
