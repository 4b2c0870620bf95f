// Issue #609: the kernel's TAI offset stays 0 until a time service sets it, and CLOCK_TAI then reads UTC, 37 s behind
// PTP-derived clocks. The libraries read CLOCK_TAI as it is (every MXL process on a host must agree on indices); the
// tools that work with grain indices say so once, when they start.
#pragma once

namespace mxl::client
{
    // One warning through the library log (MXL_LOG_LEVEL) when the kernel's TAI offset is 0; nothing otherwise.
    void warnIfTaiOffsetUnset() noexcept;
}
