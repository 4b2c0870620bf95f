#include "bridge/GrainCursor.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>

namespace mxl::bridge
{
    GrainCursor::GrainCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId, GrainReading reading)
        : SourceCursor{TransferUnit::Grain, reader, flow, std::move(flowId)}
        , _reading{reading}
        , _bytesPerSlice{bytesPerSlice(flow)}
    {
    }

    std::uint64_t GrainCursor::startAtPresent()
    {
        auto const present = ::mxlGetCurrentIndex(&_rate);
        auto const skipped = _index != 0 && present > _index ? present - _index : 0;
        _index = std::max(present, _index);
        _sentSlices = 0;
        return skipped;
    }

    void GrainCursor::forgetPosition() noexcept
    {
        _index = 0;
        _sentSlices = 0;
    }

    SourceCursor::Read GrainCursor::read()
    {
        // Wait for the source a little over one grain, but come back at least every 100 ms for signals and pings.
        auto const timeoutNs = std::clamp<std::uint64_t>(2 * periodNs(1), 10'000'000, 100'000'000);
        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
        auto const status =
            _reading == GrainReading::BySlices
                ? ::mxlFlowReaderGetGrainSlice(_reader, _index, static_cast<std::uint16_t>(_sentSlices + 1), timeoutNs, &grain, &payload)
                : ::mxlFlowReaderGetGrain(_reader, _index, timeoutNs, &grain, &payload);
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
        {
            // Resume at the present instead of chasing grains that are gone.
            auto const next = std::max(::mxlGetCurrentIndex(&_rate), _index + 1);
            Read gone{Outcome::Gone, {}, next - _index};
            _index = next;
            _sentSlices = 0;
            return gone;
        }
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
        {
            return {Outcome::NotDue, {}, 0};
        }
        if (status != MXL_STATUS_OK)
        {
            failRead(fmt::format("grain {}", _index), status);
        }
        bool const invalid = (grain.flags & MXL_GRAIN_FLAG_INVALID) != 0;
        // An invalid grain moves the target's ring with its header alone, slices (0, 0).
        std::uint16_t const start = invalid ? 0 : _sentSlices;
        std::uint16_t const end = invalid ? 0 : grain.validSlices;
        _readEnd = end;
        _readCompletes = invalid || end >= grain.totalSlices;
        return {Outcome::Ready, SourceUnit{_index, start, end, _readCompletes, 0, (end - start) * _bytesPerSlice}, 0};
    }

    void GrainCursor::advance(bool delivered)
    {
        if (_reading == GrainReading::BySlices && delivered && !_readCompletes)
        {
            // A partial grain: the rest goes as the source commits it.
            _sentSlices = _readEnd;
            return;
        }
        ++_index;
        _sentSlices = 0;
    }
}
