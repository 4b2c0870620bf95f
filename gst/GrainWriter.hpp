// mxlsink's video and data side: each buffer goes into the grain its index names. Indices skipped between two buffers
// are committed as invalid grains so that readers move on instead of waiting for grains that will never come; a
// buffer whose index is already more than a ring old, or not newer than the last one written, is counted and not
// written.
#pragma once

#include "SinkCounters.hpp"

#include <mxl/flow.h>

#include <cstdint>
#include <functional>
#include <optional>

namespace mxl::gst
{
    class GrainWriter
    {
    public:
        GrainWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, SinkCounters& counters);

        // Fills an opened grain's payload (info.grainSize bytes in info.totalSlices slices) with one buffer's media.
        using Fill = std::function<void(std::uint8_t* payload, mxlGrainInfo const& info)>;

        // Writes a buffer as grain `index`, or as the grain after the last one when the buffer has no time. `paced`: the
        // index follows TAI, so lateness is judged against the current index. An empty `fill` commits the grain invalid
        // (a buffer that could not be converted), counted in skipped.
        void write(std::optional<std::uint64_t> index, bool paced, Fill const& fill);

    private:
        mxlFlowWriter _writer;
        mxlRational _rate;
        std::uint64_t _grainCount;
        SinkCounters& _counters;
        std::optional<std::uint64_t> _last;

        void invalidate(std::uint64_t first, std::uint64_t end);
        void commit(std::uint64_t index, Fill const& fill);
    };
}
