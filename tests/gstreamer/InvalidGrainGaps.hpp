// What mxlsrc must make of a flow whose every `invalidEvery`-th grain is flagged invalid, whatever the media: buffers
// only for the valid grains, each with the bytes expected of it, and a gap event at the time of every grain skipped.
#pragma once

#include "GstHarness.hpp"

#include <mxl/rational.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace mxl::test::gst
{
    // Checks `received` (consecutive buffers of one run) and `gaps` against the rule above; returns how many invalid
    // grains were skipped between them.
    std::uint64_t checkInvalidGrainsBecameGaps(Pipeline const& pipeline, std::vector<Received> const& received,
                                               std::vector<GstClockTime> const& gaps, mxlRational rate, std::uint64_t invalidEvery,
                                               std::function<std::vector<std::uint8_t>(Received const&)> const& expectedBytes);
}
