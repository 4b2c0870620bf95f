// The one-line level meter mxl-info --watch shows under an audio flow: one block character per channel, so that 16
// channels still fit a line, and the loudest channel in numbers.
#pragma once

#include <string>
#include <vector>

namespace mxl::tools::info
{
    // The meter's window: short enough to follow speech, long enough to hold a cycle of any audible tone.
    inline constexpr double levelWindowSeconds = 0.1;

    // `peaks` holds each channel's largest absolute sample over the window (full scale 1.0). Each channel is one of
    // eight blocks, a block per 6 dB from -48 dBFS up ('.' below -48 dBFS), e.g.
    // "level [▇▇] loudest -6.0 dBFS (channel 1), last 100 ms".
    std::string formatLevelMeter(std::vector<float> const& peaks);
}
