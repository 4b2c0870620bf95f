#include "bridge/RedundantSampleMerge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>

namespace mxl::bridge
{
    namespace
    {
        std::size_t bytesOf(mxlWrappedBufferSlice const& slice) noexcept
        {
            return slice.fragments[0].size + slice.fragments[1].size;
        }

        // Copies channel `channel` of a range from one ring to another: the two rings may wrap at different samples.
        void copyChannel(mxlWrappedMultiBufferSlice const& source, mxlMutableWrappedMultiBufferSlice const& target, std::size_t channel)
        {
            std::size_t sourceFragment = 0;
            std::size_t sourceOffset = 0;
            std::size_t targetFragment = 0;
            std::size_t targetOffset = 0;
            auto remaining = bytesOf(source.base);
            while (remaining > 0)
            {
                auto const& from = source.base.fragments[sourceFragment];
                auto const& to = target.base.fragments[targetFragment];
                auto const bytes = std::min({remaining, from.size - sourceOffset, to.size - targetOffset});
                std::memcpy(static_cast<std::uint8_t*>(to.pointer) + channel * target.stride + targetOffset,
                            static_cast<std::uint8_t const*>(from.pointer) + channel * source.stride + sourceOffset, bytes);
                remaining -= bytes;
                sourceOffset += bytes;
                targetOffset += bytes;
                if (sourceOffset == from.size)
                {
                    ++sourceFragment;
                    sourceOffset = 0;
                }
                if (targetOffset == to.size)
                {
                    ++targetFragment;
                    targetOffset = 0;
                }
            }
        }
    }

    RedundantSampleMerge::RedundantSampleMerge(mxlFlowWriter realWriter, std::vector<mxlFlowReader> pathReaders)
        : _realWriter{realWriter}
        , _counters(pathReaders.size())
    {
        for (auto* const reader : pathReaders)
        {
            _paths.push_back(PathState{reader});
        }
        std::size_t readable = 0;
        std::size_t writable = 0;
        if (_paths.empty() || ::mxlFlowReaderGetMaxReadLengthSamples(_paths.front().reader, &readable) != MXL_STATUS_OK ||
            ::mxlFlowWriterGetMaxWriteLengthSamples(_realWriter, &writable) != MXL_STATUS_OK || readable == 0 || writable == 0)
        {
            throw std::runtime_error{"redundant sample merge: cannot read the path flow's or the real flow's ring length"};
        }
        _chunkSamples = std::min(readable, writable);
        // The readable half and the writer's half make the ring.
        _ringSamples = 2 * readable;
    }

    std::uint64_t RedundantSampleMerge::arrived(std::size_t path, mxlFabricsSamplesArrival const& batch)
    {
        if (batch.count == 0 || batch.count > batch.headIndex)
        {
            return 0;
        }
        auto const first = batch.headIndex - batch.count + 1;
        auto& state = _paths[path];
        auto& counters = _counters[path];
        counters.missing += _committed.countBetween(state.accounted, first);
        counters.late += _committed.countBetween(std::max(first, state.accounted), batch.headIndex + 1);
        state.accounted = std::max(state.accounted, batch.headIndex + 1);
        // A batch that does not follow the last one (an arrival lost, a reconnection) starts a new run in the path ring.
        if (!state.seen || first > state.delivered + 1)
        {
            state.runStart = first;
        }
        state.delivered = std::max(state.delivered, batch.headIndex);
        state.seen = true;
        if (!_head)
        {
            // The real flow starts with the first batch any path delivers.
            _head = first - 1;
        }
        return extend();
    }

    std::uint64_t RedundantSampleMerge::extend()
    {
        std::uint64_t moved = 0;
        for (;;)
        {
            auto const next = *_head + 1;
            if (auto const path = pathHolding(next))
            {
                auto& state = _paths[*path];
                auto const last = std::min(state.delivered, next + _chunkSamples - 1);
                if (copy(*path, next, last))
                {
                    committed(*path, next, last);
                    moved += last - next + 1;
                    _head = last;
                }
                else
                {
                    _counters[*path].dropped += last - next + 1;
                    state.runStart = last + 1;
                }
                continue;
            }
            std::optional<std::uint64_t> resume;
            for (auto const& state : _paths)
            {
                if (state.seen && state.runStart > next && state.runStart <= state.delivered)
                {
                    resume = std::min(resume.value_or(state.runStart), state.runStart);
                }
            }
            if (!resume || !giveUpWaiting(next, *resume))
            {
                break;
            }
            _skipped += *resume - next;
            moved += *resume - next;
            _head = *resume - 1;
        }
        forgetOldRanges();
        return moved;
    }

    std::optional<std::size_t> RedundantSampleMerge::pathHolding(std::uint64_t next) const
    {
        for (std::size_t path = 0; path < _paths.size(); ++path)
        {
            auto const& state = _paths[path];
            if (state.seen && state.runStart <= next && next <= state.delivered)
            {
                return path;
            }
        }
        return std::nullopt;
    }

    // No path holds `next`. Waiting is worth it while a path that has not gone past it yet may still deliver it (a slower
    // path), but not once a path holds a quarter ring beyond it: its ring's readable half would soon no longer reach back
    // to what it holds, and waiting longer would lose samples that are there now.
    bool RedundantSampleMerge::giveUpWaiting(std::uint64_t next, std::uint64_t resume) const
    {
        bool const everyPathWentPast =
            std::all_of(_paths.begin(), _paths.end(), [next](PathState const& state) { return state.seen && state.delivered >= next; });
        auto const quarterRing = _ringSamples / 4;
        bool const aPathRunsAway = std::any_of(
            _paths.begin(), _paths.end(), [&](PathState const& state) { return state.seen && state.delivered >= resume + quarterRing; });
        return everyPathWentPast || aPathRunsAway;
    }

    void RedundantSampleMerge::committed(std::size_t path, std::uint64_t first, std::uint64_t last)
    {
        _counters[path].first += last - first + 1;
        _committed.insert(first, last);
        _paths[path].accounted = std::max(_paths[path].accounted, last + 1);
        for (std::size_t other = 0; other < _paths.size(); ++other)
        {
            auto& state = _paths[other];
            if (other == path || state.accounted <= first)
            {
                continue;
            }
            // The other path went past these samples already: the ones its ring holds arrived there after the head had
            // to wait for this path (late), the others it never delivered (missing).
            auto const passedLast = std::min(last, state.accounted - 1);
            auto const heldFirst = std::max(first, state.runStart);
            auto const heldLast = std::min(passedLast, state.delivered);
            auto const held = heldFirst <= heldLast ? heldLast - heldFirst + 1 : 0;
            _counters[other].late += held;
            _counters[other].missing += passedLast - first + 1 - held;
        }
    }

    bool RedundantSampleMerge::copy(std::size_t path, std::uint64_t first, std::uint64_t last)
    {
        auto* const reader = _paths[path].reader;
        auto const count = last - first + 1;
        mxlWrappedMultiBufferSlice source{};
        auto status = ::mxlFlowReaderGetSamplesNonBlocking(reader, last, count, &source);
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE || status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
        {
            return false;
        }
        if (status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("redundant sample merge: reading samples {} to {} of path {} failed (mxlStatus {})", first,
                                                 last, path + 1, static_cast<int>(status))};
        }

        mxlMutableWrappedMultiBufferSlice target{};
        if (status = ::mxlFlowWriterOpenSamples(_realWriter, last, count, &target); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("redundant sample merge: opening samples {} to {} of the real flow failed (mxlStatus {})",
                                                 first, last, static_cast<int>(status))};
        }
        auto const targetBytes = target.base.fragments[0].size + target.base.fragments[1].size;
        if (source.count != target.count || bytesOf(source.base) != targetBytes)
        {
            ::mxlFlowWriterCancelSamples(_realWriter);
            throw std::runtime_error{fmt::format("redundant sample merge: path {} has {} channels of {} bytes for {} samples, the real "
                                                 "flow {} channels of {} bytes",
                                                 path + 1, source.count, bytesOf(source.base), count, target.count, targetBytes)};
        }
        for (std::size_t channel = 0; channel < source.count; ++channel)
        {
            copyChannel(source, target, channel);
        }

        // The path flow's writer only ever writes the half of the ring that readers cannot read, so a range still
        // readable after the copy was not written during it (a seqlock on the head). The fence keeps the payload loads
        // before the head is read again.
        std::atomic_thread_fence(std::memory_order_acquire);
        mxlWrappedMultiBufferSlice after{};
        if (::mxlFlowReaderGetSamplesNonBlocking(reader, last, count, &after) != MXL_STATUS_OK)
        {
            ::mxlFlowWriterCancelSamples(_realWriter);
            return false;
        }
        if (status = ::mxlFlowWriterCommitSamples(_realWriter); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{
                fmt::format("redundant sample merge: committing samples {} to {} to the real flow failed (mxlStatus {})", first, last,
                            static_cast<int>(status))};
        }
        _copiedBytes += bytesOf(source.base) * source.count;
        return true;
    }

    void RedundantSampleMerge::finish()
    {
        if (!_head)
        {
            return;
        }
        for (std::size_t path = 0; path < _paths.size(); ++path)
        {
            auto& state = _paths[path];
            _counters[path].missing += _committed.countBetween(state.accounted, *_head + 1);
            state.accounted = std::max(state.accounted, *_head + 1);
        }
    }

    // Committed samples a ring behind the head are never looked up again: a path that has not delivered them by now
    // counts them missing, and they are forgotten. This bounds the ranges kept while a path is dead.
    void RedundantSampleMerge::forgetOldRanges()
    {
        auto const ringStart = *_head > _ringSamples ? *_head - _ringSamples : 0;
        for (std::size_t path = 0; path < _paths.size(); ++path)
        {
            auto& state = _paths[path];
            if (state.accounted < ringStart)
            {
                _counters[path].missing += _committed.countBetween(state.accounted, ringStart);
                state.accounted = ringStart;
            }
        }
        _committed.forgetBefore(ringStart);
    }
}
