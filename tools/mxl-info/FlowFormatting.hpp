// Text for the values mxl-info prints: rates, formats, TAI times.
#pragma once

#include <mxl/rational.h>

#include <cstdint>
#include <string>

namespace mxl::tools::info
{
    // "30000/1001 (29.97 Hz)".
    std::string formatRate(mxlRational const& rate);

    // "video", "audio", "data" or "unspecified (N)".
    std::string formatDataFormat(std::uint32_t format);

    // "2026-11-22 00:02:23.123456789 TAI (1.250 s ago)"; "never" for 0.
    std::string formatTaiTime(std::uint64_t timestampNs, std::uint64_t nowNs);
}
