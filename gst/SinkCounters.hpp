// What mxlsink did with the buffers it was given, read by applications (and the tests) through its read-only
// properties while the streaming thread counts.
#pragma once

#include <atomic>
#include <cstdint>

namespace mxl::gst
{
    struct SinkCounters
    {
        // Buffers committed to the flow.
        std::atomic<std::uint64_t> written{0};
        // Buffers whose index was more than a ring behind the current TAI index: readers could no longer get them.
        std::atomic<std::uint64_t> late{0};
        // Buffers whose index repeated or went back behind one already written.
        std::atomic<std::uint64_t> dropped{0};
        // Grains (video) or samples (audio) between two buffers that no buffer covered.
        std::atomic<std::uint64_t> skipped{0};

        void reset()
        {
            written = 0;
            late = 0;
            dropped = 0;
            skipped = 0;
        }
    };
}
