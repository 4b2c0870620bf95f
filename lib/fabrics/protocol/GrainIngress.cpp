#include "fabrics/protocol/GrainIngress.hpp"

#include "common/Status.hpp"

namespace mxl::fabrics
{
    GrainIngress::GrainIngress(mxlFlowWriter writer, GrainGeometry const& geometry)
        : _writer{writer}
        , _geometry{geometry}
    {
    }

    GrainArrival GrainIngress::arrive(std::uint32_t immediate)
    {
        auto const& memory = _writer->memory;
        auto const slot = immediate & 0xFFFFu;
        auto const endSlice = static_cast<std::uint16_t>(immediate >> 16);
        if (slot >= memory.grainCount)
        {
            fail(MXL_ERR_INVALID_ARG, "an initiator completed ring slot {}, but this target has {} slots (grain ring sizes out of sync?)",
                 slot, memory.grainCount);
        }
        if (endSlice > _geometry.totalSlices())
        {
            fail(MXL_ERR_INVALID_ARG, "an initiator completed slices up to {} in slot {}, but grains have {} slices", endSlice, slot,
                 _geometry.totalSlices());
        }

        auto* header = reinterpret_cast<mxlGrainInfo*>(memory.grains[slot]);
        auto const index = header->index;
        if (index % memory.grainCount != slot)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "slot {} holds the header of grain {}, which belongs in slot {}: the initiator sent slices without first sending the "
                 "header",
                 slot, index, index % memory.grainCount);
        }
        if (endSlice != 0 && (header->flags & MXL_GRAIN_FLAG_INVALID) != 0 && header->validSlices == 0)
        {
            fail(MXL_ERR_OUT_OF_RANGE_TOO_LATE,
                 "slot {} is being rewritten with grain {} (it holds the in-flight mark): the grain this completion announced was "
                 "overwritten before this target read it; it is lost",
                 slot, index);
        }
        header->validSlices = endSlice;

        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        if (auto const status = mxlFlowWriterOpenGrain(_writer, index, &info, &payload); status != MXL_STATUS_OK)
        {
            fail(status, "could not open arrived grain {} (slot {}) for publishing: status {}", index, slot, static_cast<int>(status));
        }
        info.validSlices = endSlice;
        info.flags = header->flags;
        if (auto const status = mxlFlowWriterCommitGrain(_writer, &info); status != MXL_STATUS_OK)
        {
            fail(status, "could not commit arrived grain {} (slot {}): status {}", index, slot, static_cast<int>(status));
        }
        return {index, endSlice, info.totalSlices, info.flags};
    }
}
