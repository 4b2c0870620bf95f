// What one read of mxlsrc's flow gave: a buffer, grains the writer flagged invalid, grains or samples lost (rewritten
// before mxlsrc got to them, or skipped by the writer), a flush request, or the end of the flow.
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <cstdint>

namespace mxl::gst
{
    struct ReadResult
    {
        enum class Kind
        {
            buffer,
            invalid,
            lost,
            flushing,
            ended,
        };

        Kind kind = Kind::flushing;
        // Owned by the caller (kind == buffer).
        GstBuffer* buffer = nullptr;
        // The first grain or sample index, and how many (buffer, invalid, lost).
        std::uint64_t index = 0;
        std::uint64_t count = 0;
    };

    // How long one wait on the flow lasts before the reader looks at the flushing flag again: the bound on how long
    // a flush or a stop waits for a reader blocked on a flow that nobody writes.
    inline constexpr std::uint64_t flowWaitSliceNs = 50'000'000;
}
