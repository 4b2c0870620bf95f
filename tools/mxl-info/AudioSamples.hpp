// Copies of an audio flow's samples, safe against a writer that reuses the ring meanwhile.
#pragma once

#include <mxl/flow.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxl::tools::info
{
    struct AudioRange
    {
        // The last sample of the range.
        std::uint64_t index = 0;
        std::size_t count = 0;
    };

    // The range of `count` samples ending at the reader's head, clamped to what one read may take (half the ring).
    // Throws ToolError(Failure) naming the flow when the flow info cannot be read.
    AudioRange recentRange(mxlFlowReader reader, std::string const& flowId, std::size_t count);

    // One vector per channel. Waits up to `timeoutNs` for the range, copies it, then checks without waiting that the
    // range is still readable, so that a copy overlapped by the writer is never returned. The mxl status of the first
    // failing read is returned in `status` (and the channels are empty).
    std::vector<std::vector<float>> copySamples(mxlFlowReader reader, AudioRange const& range, std::uint64_t timeoutNs, mxlStatus& status);
}
