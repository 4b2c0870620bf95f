// Hitless redundant paths for audio (continuous flows): the same sample batches arrive over several paths, each into a
// private path flow of the real flow's definition, and the real flow is extended from whichever path holds the samples
// after its head first. Its head only ever moves over samples copied whole from one path ring and proved still there
// after the copy, so a reader never sees a torn range (docs/fabrics-demo.md, "Redundant paths").
//
// Counters (PathCounters) are in samples here: batches differ in length between initiators, samples do not.
//
// Single-threaded: the caller hands every path's arrivals to one merger from one thread.
#pragma once

#include "bridge/IndexRanges.hpp"
#include "bridge/RedundantMerge.hpp"

#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mxl::bridge
{
    class RedundantSampleMerge
    {
    public:
        // `pathReaders[i]` reads path i's flow; the real flow's writer and the readers are the caller's and outlive the
        // merger. Every flow must have the same channel count and sample word size.
        RedundantSampleMerge(mxlFlowWriter realWriter, std::vector<mxlFlowReader> pathReaders);

        // Path `path` committed `batch` to its path flow. Returns how many samples the real flow's head moved by, copied
        // or passed over. Throws std::runtime_error when a flow call fails (not a lost race) or the flows do not match.
        std::uint64_t arrived(std::size_t path, mxlFabricsSamplesArrival const& batch);

        // Counts as missing, for each path, the committed samples after the last one it delivered; call once, at the end.
        void finish();

        [[nodiscard]] std::vector<PathCounters> const& counters() const noexcept
        {
            return _counters;
        }

        // Samples the real flow's head passed over because no path could supply them: the flow writer zeroes them.
        [[nodiscard]] std::uint64_t skipped() const noexcept
        {
            return _skipped;
        }

        // The payload bytes copied into the real flow, all channels.
        [[nodiscard]] std::uint64_t copiedBytes() const noexcept
        {
            return _copiedBytes;
        }

        // The real flow's head (its newest committed sample), once the first batch arrived.
        [[nodiscard]] std::optional<std::uint64_t> head() const noexcept
        {
            return _head;
        }

    private:
        struct PathState
        {
            mxlFlowReader reader;
            // The path's ring holds its samples [runStart, delivered] (when runStart <= delivered): the ones it delivered
            // since its last gap, less those a failed copy showed overwritten.
            std::uint64_t runStart = 0;
            std::uint64_t delivered = 0;
            bool seen = false;
            // Every committed sample below this one is counted for this path (first, late or missing).
            std::uint64_t accounted = 0;
        };

        mxlFlowWriter _realWriter;
        std::vector<PathState> _paths;
        std::vector<PathCounters> _counters;
        // The most samples one copy moves: half a ring, the most a reader may read and a writer open at once.
        std::uint64_t _chunkSamples = 0;
        // Samples per channel ring: how far back the committed ranges are kept.
        std::uint64_t _ringSamples = 0;
        std::optional<std::uint64_t> _head;
        std::uint64_t _skipped = 0;
        std::uint64_t _copiedBytes = 0;
        IndexRanges _committed;

        // Moves the real flow's head as far as the paths' rings allow; returns by how much.
        std::uint64_t extend();
        // The first path whose ring holds sample `next`.
        [[nodiscard]] std::optional<std::size_t> pathHolding(std::uint64_t next) const;
        // Whether the head should pass over `next`, which no path holds, to `resume` (the lowest sample a path holds).
        [[nodiscard]] bool giveUpWaiting(std::uint64_t next, std::uint64_t resume) const;
        void committed(std::size_t path, std::uint64_t first, std::uint64_t last);
        // Copies [first, last] from path `path`'s ring into the real flow and commits it; false when the path ring no
        // longer held all of it (before or after the copy).
        bool copy(std::size_t path, std::uint64_t first, std::uint64_t last);
        void forgetOldRanges();
    };
}
