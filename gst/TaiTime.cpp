#include "TaiTime.hpp"

#include <mxl/time.h>

namespace mxl::gst
{
    namespace
    {
        bool isTaiClock(GstClock* clock)
        {
            if (!GST_IS_SYSTEM_CLOCK(clock))
            {
                return false;
            }
            GstClockType type = GST_CLOCK_TYPE_MONOTONIC;
            g_object_get(clock, "clock-type", &type, nullptr);
            return type == GST_CLOCK_TYPE_TAI;
        }
    }

    OfferedTaiClock::OfferedTaiClock()
        : _clock{GST_CLOCK(
              gst_object_ref_sink(g_object_new(GST_TYPE_SYSTEM_CLOCK, "name", "mxl-tai-clock", "clock-type", GST_CLOCK_TYPE_TAI, nullptr)))}
    {
    }

    OfferedTaiClock::~OfferedTaiClock()
    {
        gst_object_unref(_clock);
    }

    void OfferedTaiClock::offerTo(GstElement* element) const
    {
        GST_OBJECT_FLAG_SET(element, GST_ELEMENT_FLAG_PROVIDE_CLOCK);
        gst_element_set_clock(element, _clock);
    }

    GstClock* OfferedTaiClock::provide() const
    {
        return GST_CLOCK(gst_object_ref(_clock));
    }

    std::optional<std::int64_t> RunningTimeOrigin::onClock(GstElement* element)
    {
        auto* const clock = gst_element_get_clock(element);
        if (clock == nullptr)
        {
            return std::nullopt;
        }
        if (!_clockToTaiNs)
        {
            // A TAI clock needs no offset, and measuring one would only add the jitter of two clock reads.
            _clockToTaiNs =
                isTaiClock(clock) ? 0 : static_cast<std::int64_t>(mxlGetTime()) - static_cast<std::int64_t>(gst_clock_get_time(clock));
        }
        gst_object_unref(clock);
        return static_cast<std::int64_t>(gst_element_get_base_time(element)) + *_clockToTaiNs;
    }

    void RunningTimeOrigin::reset()
    {
        _clockToTaiNs.reset();
    }
}
