#include "bridge/RedundantMerge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>

namespace mxl::bridge
{
    RedundantMerge::RedundantMerge(mxlFlowWriter realWriter, std::vector<mxlFlowReader> pathReaders)
        : _realWriter{realWriter}
        , _pathReaders{std::move(pathReaders)}
        , _counters(_pathReaders.size())
        , _nextIndex(_pathReaders.size(), 0)
    {
        mxlFlowConfigInfo config{};
        if (_pathReaders.empty() || ::mxlFlowReaderGetConfigInfo(_pathReaders.front(), &config) != MXL_STATUS_OK)
        {
            throw std::runtime_error{"redundant merge: cannot read the path flow's configuration"};
        }
        _grainCount = config.discrete.grainCount;
    }

    RedundantMerge::Outcome RedundantMerge::arrived(std::size_t path, mxlFabricsGrainArrival const& arrival)
    {
        if ((arrival.flags & MXL_GRAIN_FLAG_INVALID) != 0 || arrival.validSlices < arrival.totalSlices)
        {
            return Outcome::Incomplete;
        }
        auto const index = arrival.index;
        auto& counters = _counters[path];
        if (auto& next = _nextIndex[path]; index >= next)
        {
            counters.missing += _committed.countBetween(next, index);
            next = index + 1;
        }
        // A grain a whole ring older than the newest commit would overwrite a newer grain's slot in the real flow.
        if (_committed.contains(index) || (_highest && index + _grainCount <= *_highest))
        {
            ++counters.late;
            return Outcome::Late;
        }
        if (!copy(path, index))
        {
            ++counters.dropped;
            return Outcome::Dropped;
        }
        ++counters.first;
        markCommitted(index);
        for (std::size_t other = 0; other < _nextIndex.size(); ++other)
        {
            if (other != path && _nextIndex[other] > index)
            {
                ++_counters[other].missing;
            }
        }
        forgetOldRanges();
        return Outcome::Committed;
    }

    std::uint64_t RedundantMerge::lost() const
    {
        if (!_highest || _finished)
        {
            return uncommitted();
        }
        // Indices up to `settledEnd` are a whole ring behind the newest commit: late whoever delivers them (see arrived()).
        if (*_highest < _grainCount || *_highest - _grainCount < _firstCommitted)
        {
            return 0;
        }
        auto const settledEnd = *_highest - _grainCount;
        auto const committedSince = _committed.countBetween(settledEnd + 1, *_highest + 1);
        return settledEnd - _firstCommitted + 1 - (_committedCount - committedSince);
    }

    void RedundantMerge::finish()
    {
        _finished = true;
        if (_committed.empty())
        {
            return;
        }
        auto const end = _committed.last() + 1;
        for (std::size_t path = 0; path < _nextIndex.size(); ++path)
        {
            _counters[path].missing += _committed.countBetween(_nextIndex[path], end);
            _nextIndex[path] = std::max(_nextIndex[path], end);
        }
    }

    bool RedundantMerge::copy(std::size_t path, std::uint64_t index)
    {
        auto* const reader = _pathReaders[path];
        mxlGrainInfo source{};
        std::uint8_t* sourcePayload = nullptr;
        auto status = ::mxlFlowReaderGetGrainNonBlocking(reader, index, &source, &sourcePayload);
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE || status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
        {
            return false;
        }
        if (status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("redundant merge: reading grain {} of path {} failed (mxlStatus {})", index, path + 1,
                                                 static_cast<int>(status))};
        }
        if ((source.flags & MXL_GRAIN_FLAG_INVALID) != 0 || source.validSlices < source.totalSlices)
        {
            return false;
        }

        mxlGrainInfo target{};
        std::uint8_t* targetPayload = nullptr;
        if (status = ::mxlFlowWriterOpenGrain(_realWriter, index, &target, &targetPayload); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{
                fmt::format("redundant merge: opening grain {} of the real flow failed (mxlStatus {})", index, static_cast<int>(status))};
        }
        if (target.grainSize != source.grainSize)
        {
            ::mxlFlowWriterCancelGrain(_realWriter);
            throw std::runtime_error{fmt::format("redundant merge: grain {} of path {} has {} bytes, the real flow's grains {}", index,
                                                 path + 1, source.grainSize, target.grainSize)};
        }
        std::memcpy(targetPayload, sourcePayload, source.grainSize);
        std::memcpy(target.reserved, source.reserved, sizeof target.reserved);

        // Seqlock: a later grain's transfer marks the slot with its own index before it writes a byte of payload, so a
        // header that still holds this grain after the copy proves the copy is this grain's. The fence keeps the payload
        // loads before the header is read again.
        std::atomic_thread_fence(std::memory_order_acquire);
        mxlGrainInfo after{};
        std::uint8_t* afterPayload = nullptr;
        status = ::mxlFlowReaderGetGrainNonBlocking(reader, index, &after, &afterPayload);
        if (status != MXL_STATUS_OK || after.index != index || after.flags != source.flags || after.validSlices != source.validSlices)
        {
            ::mxlFlowWriterCancelGrain(_realWriter);
            return false;
        }

        target.flags = source.flags;
        target.validSlices = target.totalSlices;
        if (status = ::mxlFlowWriterCommitGrain(_realWriter, &target); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("redundant merge: committing grain {} to the real flow failed (mxlStatus {})", index,
                                                 static_cast<int>(status))};
        }
        return true;
    }

    void RedundantMerge::markCommitted(std::uint64_t index)
    {
        // A path behind the one that committed first may still commit older indices: the span starts at the lowest.
        _firstCommitted = _highest ? std::min(_firstCommitted, index) : index;
        ++_committedCount;
        _highest = std::max(_highest.value_or(index), index);
        _committed.insert(index, index);
    }

    // A grain a whole ring behind the newest commit is late whoever delivers it (see arrived()), so the ranges before it
    // are never looked up again: a path that has not delivered them by now counts them missing, and they are forgotten.
    // This bounds the ranges kept while a path is dead.
    void RedundantMerge::forgetOldRanges()
    {
        auto const ringStart = *_highest >= _grainCount ? *_highest - _grainCount : 0;
        for (std::size_t path = 0; path < _nextIndex.size(); ++path)
        {
            if (_nextIndex[path] < ringStart)
            {
                _counters[path].missing += _committed.countBetween(_nextIndex[path], ringStart);
                _nextIndex[path] = ringStart;
            }
        }
        _committed.forgetBefore(ringStart);
    }
}
