#include "ArrivalTally.hpp"

#include "TransferUnit.hpp"

#include <mxl/flowinfo.h>

#include <algorithm>

namespace mxl::bridge
{
    ArrivalTally::ArrivalTally(mxlFlowReader reader, mxlFlowConfigInfo const& flow) noexcept
        : _reader{reader}
        , _bytesPerSlice{bytesPerSlice(flow)}
    {
    }

    void ArrivalTally::restart() noexcept
    {
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

    ArrivalTally::Counted ArrivalTally::grain(mxlFabricsGrainArrival const& arrival)
    {
        Counted counted;
        if (!_grain || _grain->index != arrival.index)
        {
            // A grain left with some of its slices when a later one arrives never completes: its sender went on without
            // the rest.
            auto const leftIncomplete = _grain && !_grain->completed && arrival.index > _grain->index;
            counted.lost = skippedBefore(arrival.index, arrival.index) + (leftIncomplete ? 1 : 0);
            _grain = GrainProgress{arrival.index};
        }
        _grain->validSlices = std::max(_grain->validSlices, arrival.validSlices);
        auto const invalid = (arrival.flags & MXL_GRAIN_FLAG_INVALID) != 0;
        if (!_grain->completed && (invalid || arrival.validSlices >= arrival.totalSlices))
        {
            _grain->completed = true;
            counted.completed = Unit{arrival.index, _grain->validSlices * _bytesPerSlice, 0};
        }
        return counted;
    }

    ArrivalTally::Counted ArrivalTally::samples(mxlFabricsSamplesArrival const& arrival)
    {
        // A range ends at (and includes) its head index.
        auto const first = arrival.headIndex + 1 - std::min<std::uint64_t>(arrival.count, arrival.headIndex + 1);
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
