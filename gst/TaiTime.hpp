// Where GStreamer time meets flow time. libmxl counts grain and sample indices on TAI (CLOCK_TAI, mxlGetTime); a
// pipeline counts running time on its clock from a base time. Both elements offer the pipeline a TAI clock, so that on
// it running time + base time is TAI itself; on any other clock the two are related by an offset measured once.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <optional>

namespace mxl::gst
{
    // The system clock reading CLOCK_TAI that an element offers its pipeline (GST_ELEMENT_FLAG_PROVIDE_CLOCK); made with
    // the element's state and released with it.
    class OfferedTaiClock
    {
    public:
        OfferedTaiClock();
        ~OfferedTaiClock();

        OfferedTaiClock(OfferedTaiClock const&) = delete;
        OfferedTaiClock& operator=(OfferedTaiClock const&) = delete;

        // Marks `element` as providing a clock and runs it on this one until a pipeline distributes its own choice (so
        // that gst-inspect shows it).
        void offerTo(GstElement* element) const;

        // A new reference, for the element's provide_clock.
        [[nodiscard]] GstClock* provide() const;

    private:
        GstClock* _clock;
    };

    class RunningTimeOrigin
    {
    public:
        // TAI nanoseconds of running time 0 for `element` on its pipeline clock (base time + offset of that clock to TAI),
        // or nullopt when the element has no clock. Called for every buffer: the base time changes on pause and resume.
        std::optional<std::int64_t> onClock(GstElement* element);

        // Forget the offset of the last clock (a new clock may come with the next start).
        void reset();

    private:
        std::optional<std::int64_t> _clockToTaiNs;
    };
}
