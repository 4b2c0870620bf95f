#include "TaiOffsetCheck.hpp"

#include "common/Log.hpp"

#include <sys/timex.h>

namespace mxl::client
{
    void warnIfTaiOffsetUnset() noexcept
    {
        timex query{};
        query.modes = 0; // read only; needs no privilege
        if (::adjtimex(&query) == -1 || query.tai != 0)
        {
            return;
        }
        log::warn("the kernel's TAI offset is 0, so CLOCK_TAI reads UTC and grain indices are 37 s behind clocks derived from PTP (and "
                  "behind hosts whose offset is set). Let the time service set it: ptp4l with phc2sys, or chrony with 'leapsectz "
                  "right/UTC'; without one, set it at boot through adjtimex(2) mode ADJ_TAI with 37.");
    }
}
