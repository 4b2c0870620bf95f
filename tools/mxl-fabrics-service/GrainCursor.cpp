#include "GrainCursor.hpp"

#include <StatusName.hpp>

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace mxl::service
{
    namespace
    {
        std::uint64_t grainPeriodNs(mxlRational const& rate)
        {
            return static_cast<std::uint64_t>(1'000'000'000LL * rate.denominator / std::max<std::int64_t>(rate.numerator, 1));
        }
    }

    GrainCursor::GrainCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId)
        : _reader{reader}
        , _rate{flow.common.grainRate}
        , _flowId{std::move(flowId)}
    {
        for (auto const size : flow.discrete.sliceSizes)
        {
            _bytesPerSlice += size;
        }
    }

    void GrainCursor::startAtPresent()
    {
        _index = ::mxlGetCurrentIndex(&_rate);
    }

    SourceCursor::Read GrainCursor::read()
    {
        // Wait for the source a little over one grain, but come back at least every 100 ms for signals and pings.
        auto const timeoutNs = std::clamp<std::uint64_t>(2 * grainPeriodNs(_rate), 10'000'000, 100'000'000);
        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
        auto const status = ::mxlFlowReaderGetGrain(_reader, _index, timeoutNs, &grain, &payload);
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
        {
            // Resume at the present instead of chasing grains that are gone.
            auto const next = std::max(::mxlGetCurrentIndex(&_rate), _index + 1);
            Read gone{Outcome::Gone, {}, next - _index};
            _index = next;
            return gone;
        }
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
        {
            return {Outcome::NotDue, {}, 0};
        }
        if (status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("reading grain {} of flow {} failed: {}", _index, _flowId, tools::statusName(status))};
        }
        bool const invalid = (grain.flags & MXL_GRAIN_FLAG_INVALID) != 0;
        // An invalid grain moves the target's ring with its header alone.
        std::uint16_t const endSlice = invalid ? 0 : grain.validSlices;
        return {Outcome::Ready, SourceUnit{_index, endSlice, 0, endSlice * _bytesPerSlice}, 0};
    }

    mxlStatus GrainCursor::post(mxlFabricsInitiator initiator, SourceUnit const& unit) const
    {
        return ::mxlFabricsInitiatorTransferGrain(initiator, unit.index, 0, unit.endSlice);
    }

    void GrainCursor::advance()
    {
        ++_index;
    }
}
