#include "bridge/SourceCursor.hpp"

#include "bridge/GrainCursor.hpp"
#include "bridge/SampleCursor.hpp"
#include "common/StatusName.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace mxl::bridge
{
    std::unique_ptr<SourceCursor> makeSourceCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string const& flowId,
                                                   GrainReading grains)
    {
        if (transferUnitOf(flow) == TransferUnit::Batch)
        {
            return std::make_unique<SampleCursor>(reader, flow, flowId);
        }
        return std::make_unique<GrainCursor>(reader, flow, flowId, grains);
    }

    SourceCursor::SourceCursor(TransferUnit unit, mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId)
        : _reader{reader}
        , _rate{flow.common.grainRate}
        , _flowId{std::move(flowId)}
        , _unit{unit}
    {
    }

    mxlStatus SourceCursor::post(mxlFabricsInitiator initiator, SourceUnit const& unit) const
    {
        if (_unit == TransferUnit::Batch)
        {
            return ::mxlFabricsInitiatorTransferSamples(initiator, unit.index, unit.samples);
        }
        return ::mxlFabricsInitiatorTransferGrain(initiator, unit.index, unit.startSlice, unit.endSlice);
    }

    mxlStatus SourceCursor::addTo(mxlFabricsInitiator initiator, mxlFabricsBatch batch, mxlFabricsTargetInfo target,
                                  SourceUnit const& unit) const
    {
        std::uint32_t transfer = 0;
        if (_unit == TransferUnit::Batch)
        {
            return ::mxlFabricsBatchAddSamples(initiator, batch, target, unit.index, unit.samples, &transfer);
        }
        return ::mxlFabricsBatchAddGrain(initiator, batch, target, unit.index, unit.startSlice, unit.endSlice, &transfer);
    }

    std::uint64_t SourceCursor::periodNs(std::uint64_t units) const noexcept
    {
        return static_cast<std::uint64_t>(1'000'000'000LL * _rate.denominator * static_cast<std::int64_t>(units) /
                                          std::max<std::int64_t>(_rate.numerator, 1));
    }

    void SourceCursor::failRead(std::string const& what, mxlStatus status) const
    {
        if (status == MXL_ERR_FLOW_INVALID)
        {
            throw SourceGone{fmt::format("reading {} of flow {} failed: the flow was deleted or re-created by its writer", what, _flowId)};
        }
        throw std::runtime_error{fmt::format("reading {} of flow {} failed: {}", what, _flowId, statusName(status))};
    }
}
