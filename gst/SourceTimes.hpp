// mxlsrc's timestamps: the running time and duration of a grain or a run of samples, from its index on the flow's rate.
#pragma once

#include "TaiTime.hpp"

#include <mxl/rational.h>

#include <gst/gst.h>

#include <cstdint>
#include <optional>

namespace mxl::gst
{
    struct Span
    {
        GstClockTime start;
        GstClockTime duration;
    };

    class SourceTimes
    {
    public:
        // The span of `count` grains or samples from `index` for `element`, or nullopt for data timed before the pipeline
        // started (a live source cannot timestamp it). Without a clock the first data asked for is running time 0.
        std::optional<Span> spanOf(GstElement* element, mxlRational const& rate, std::uint64_t index, std::uint64_t count);

        // Forget the clock and the first data (a new start may come with a new clock).
        void reset();

    private:
        RunningTimeOrigin _clockOrigin;
        std::optional<std::int64_t> _freeOrigin;

        std::optional<GstClockTime> runningTimeOf(GstElement* element, std::uint64_t tai);
    };
}
