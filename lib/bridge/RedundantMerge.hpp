// Hitless redundant paths for whole grains (the idea of SMPTE ST 2022-7): the same grains arrive over several paths,
// each into a private "path flow" of the real flow's definition, and the first complete arrival of each grain index is
// copied into the real flow. Grains are merged whole: the slices of one grain never come from two paths, so a committed
// grain is always one that a single path delivered complete and that was copied while its slot provably held it
// (docs/fabrics-demo.md, "Redundant paths").
//
// Single-threaded: the caller hands every path's arrivals to one merger from one thread.
#pragma once

#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include "bridge/IndexRanges.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mxl::bridge
{
    struct PathCounters
    {
        // Complete grains this path delivered before any other path did: copied into the real flow.
        std::uint64_t first = 0;
        // Complete grains this path delivered after another path's copy of the same index was committed.
        std::uint64_t late = 0;
        // Grains another path committed that this path never delivered complete: counted once this path delivered a
        // later index, when another path commits an index this path already went past, when the grain is a whole ring
        // behind the newest commit, or at finish().
        std::uint64_t missing = 0;
        // First arrivals whose path flow slot moved on to a later grain before or while they were copied: not committed.
        std::uint64_t dropped = 0;
    };

    class RedundantMerge
    {
    public:
        // What became of one arrival.
        enum class Outcome
        {
            // Copied into the real flow and committed.
            Committed,
            // Another path's copy of the index is committed already.
            Late,
            // The path flow's slot no longer held the grain: nothing committed, another path may still deliver it.
            Dropped,
            // Not complete yet (slices missing) or flagged invalid: nothing to merge.
            Incomplete,
        };

        // `pathReaders[i]` reads path i's flow; the real flow's writer and the readers are the caller's and outlive the
        // merger. Every flow must have the same grain size.
        RedundantMerge(mxlFlowWriter realWriter, std::vector<mxlFlowReader> pathReaders);

        // Path `path` published `arrival` in its path flow. Throws std::runtime_error when the real flow refuses the
        // grain (a flow API failure, not a lost race).
        Outcome arrived(std::size_t path, mxlFabricsGrainArrival const& arrival);

        // Counts as missing, for each path, the committed indices after the last one it delivered; call once, at the end.
        void finish();

        [[nodiscard]] std::vector<PathCounters> const& counters() const noexcept
        {
            return _counters;
        }

        // Indices between the first and the newest commit that no path has delivered (yet): grains lost unless they still
        // come. Commits follow arrival, so a path that joins ahead of the other moves the head past indices the other
        // delivers a moment later; those count here only until then.
        [[nodiscard]] std::uint64_t uncommitted() const noexcept
        {
            return _highest ? *_highest - _firstCommitted + 1 - _committedCount : 0;
        }

        // The uncommitted indices that can no longer come: those a whole ring behind the newest commit, and after finish()
        // all of them. Never falls, so that it can be a counter.
        [[nodiscard]] std::uint64_t lost() const;

    private:
        mxlFlowWriter _realWriter;
        std::vector<mxlFlowReader> _pathReaders;
        // The flows' ring length: how far behind the newest commit a grain may still be committed.
        std::uint64_t _grainCount = 0;
        std::optional<std::uint64_t> _highest;
        std::uint64_t _firstCommitted = 0;
        std::uint64_t _committedCount = 0;
        bool _finished = false;
        std::vector<PathCounters> _counters;
        // Per path, the index after the last complete grain it delivered (0 before the first).
        std::vector<std::uint64_t> _nextIndex;
        IndexRanges _committed;

        void markCommitted(std::uint64_t index);
        void forgetOldRanges();
        // Copies grain `index` from path `path`'s flow into the real flow; false when the slot moved on.
        bool copy(std::size_t path, std::uint64_t index);
    };
}
