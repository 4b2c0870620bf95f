#include "ArrivalTally.hpp"

#include "TransferUnit.hpp"

#include <common/Log.hpp>

#include <mxl/flowinfo.h>

#include <algorithm>
#include <limits>

namespace mxl::bridge
{
    namespace
    {
        // The units a flow of `rate` makes in `elapsed`; 0 for a rate it does not state.
        std::uint64_t unitsIn(mxlRational const& rate, ArrivalTally::Clock::duration elapsed) noexcept
        {
            auto const seconds = std::chrono::duration<long double>(elapsed).count();
            if (rate.numerator <= 0 || rate.denominator <= 0 || seconds <= 0)
            {
                return 0;
            }
            // A bound, not an index: long double keeps it exact enough for any outage, and cannot overflow.
            auto const units = seconds * rate.numerator / rate.denominator;
            return units >= static_cast<long double>(std::numeric_limits<std::uint64_t>::max()) ? std::numeric_limits<std::uint64_t>::max()
                                                                                                : static_cast<std::uint64_t>(units);
        }
    }

    ArrivalTally::ArrivalTally(mxlFlowReader reader, mxlFlowConfigInfo const& flow) noexcept
        : _reader{reader}
        , _bytesPerSlice{bytesPerSlice(flow)}
        , _rate{flow.common.grainRate}
        , _ringLength{transferUnitOf(flow) == TransferUnit::Grain ? flow.discrete.grainCount : flow.continuous.bufferLength}
    {
    }

    void ArrivalTally::restart() noexcept
    {
        _restarted = _nextExpected.has_value();
    }

    void ArrivalTally::expectNewStream(Clock::time_point after) noexcept
    {
        _newStreamFrom = after;
    }

    void ArrivalTally::settleResumption(std::uint64_t first, Clock::time_point now)
    {
        if (!_newStreamFrom || now < *_newStreamFrom)
        {
            return;
        }
        _newStreamFrom.reset();
        // The sender resumes at the present: the rule across a rebuild would count the whole pause as lost.
        _restarted = false;
        // The next index in turn: the sender resumed within the trailing time, and the stream simply goes on.
        if (!_nextExpected || first == *_nextExpected)
        {
            return;
        }
        log::info("index {} is the first to arrive since the sender stopped on purpose and starts a new stream (the newest before, {}, "
                  "arrived {:.1f} s earlier): nothing counts as lost across the pause",
                  first, *_nextExpected - 1, std::chrono::duration<double>(now - _lastArrivalAt).count());
        _nextExpected.reset();
        _grain.reset();
    }

    void ArrivalTally::settleRestart(std::uint64_t first, Clock::time_point now)
    {
        _restarted = false;
        auto const newest = *_nextExpected - 1;
        auto const elapsed = now - _lastArrivalAt;
        auto const seconds = std::chrono::duration<double>(elapsed).count();
        // The newest unit before may have arrived late: up to a second, after which an initiator gives a transfer up.
        auto const delays = _ringLength + unitsIn(_rate, std::chrono::seconds{1});
        if (first >= *_nextExpected && first - *_nextExpected <= unitsIn(_rate, elapsed) + delays)
        {
            if (first > *_nextExpected)
            {
                log::info("index {} is the first to arrive since the target was rebuilt and goes on from {} ({:.1f} s earlier): "
                          "indices {} to {} never arrived and count as lost",
                          first, newest, seconds, *_nextExpected, first - 1);
            }
            return;
        }
        log::info("index {} is the first to arrive since the target was rebuilt and starts a new stream ({} the newest before, {}, "
                  "{:.1f} s earlier): nothing counts as lost across the rebuild",
                  first, first > newest ? "too far ahead of" : "behind", newest, seconds);
        _nextExpected.reset();
        _grain.reset();
    }

    std::uint64_t ArrivalTally::skippedBefore(std::uint64_t first, std::uint64_t last) noexcept
    {
        std::uint64_t lost = 0;
        if (_nextExpected && first > *_nextExpected)
        {
            auto const perUnit = std::max<std::uint64_t>(last + 1 - first, 1);
            lost = (first - *_nextExpected + perUnit - 1) / perUnit;
        }
        _nextExpected = std::max(_nextExpected.value_or(0), last + 1);
        return lost;
    }

    ArrivalTally::Counted ArrivalTally::grain(mxlFabricsGrainArrival const& arrival, Clock::time_point now)
    {
        Counted counted;
        if (!_grain || _grain->index != arrival.index)
        {
            settleResumption(arrival.index, now);
            if (_restarted)
            {
                settleRestart(arrival.index, now);
            }
            // A grain left with some of its slices when a later one arrives never completes: its sender went on without
            // the rest.
            auto const leftIncomplete = _grain && !_grain->completed && arrival.index > _grain->index;
            counted.lost = skippedBefore(arrival.index, arrival.index) + (leftIncomplete ? 1 : 0);
            _grain = GrainProgress{arrival.index};
        }
        _lastArrivalAt = now;
        _grain->validSlices = std::max(_grain->validSlices, arrival.validSlices);
        auto const invalid = (arrival.flags & MXL_GRAIN_FLAG_INVALID) != 0;
        if (!_grain->completed && (invalid || arrival.validSlices >= arrival.totalSlices))
        {
            _grain->completed = true;
            counted.completed = Unit{arrival.index, _grain->validSlices * _bytesPerSlice, 0};
        }
        return counted;
    }

    ArrivalTally::Counted ArrivalTally::samples(mxlFabricsSamplesArrival const& arrival, Clock::time_point now)
    {
        // A range ends at (and includes) its head index.
        auto const first = arrival.headIndex + 1 - std::min<std::uint64_t>(arrival.count, arrival.headIndex + 1);
        settleResumption(first, now);
        if (_restarted)
        {
            settleRestart(first, now);
        }
        _lastArrivalAt = now;
        Counted counted;
        counted.lost = skippedBefore(first, arrival.headIndex);
        mxlWrappedMultiBufferSlice slices{};
        std::uint64_t bytes = 0;
        if (::mxlFlowReaderGetSamplesNonBlocking(_reader, arrival.headIndex, arrival.count, &slices) == MXL_STATUS_OK)
        {
            bytes = (slices.base.fragments[0].size + slices.base.fragments[1].size) * slices.count;
        }
        counted.completed = Unit{arrival.headIndex, bytes, arrival.count};
        return counted;
    }
}
