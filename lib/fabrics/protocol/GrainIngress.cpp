#include "fabrics/protocol/GrainIngress.hpp"

#include "common/SharedAtomics.hpp"
#include "common/Status.hpp"
#include "fabrics/protocol/Wire.hpp"

#include <atomic>
#include <cstring>

namespace mxl::fabrics
{
    GrainIngress::GrainIngress(mxlFlowWriter writer, GrainGeometry const& geometry, DeviceStaging* staging)
        : _writer{writer}
        , _geometry{geometry}
        , _staging{staging}
        , _landed(staging != nullptr ? writer->memory.grainCount : 0)
    {
    }

    mxlFabricsGrainArrival GrainIngress::arrive(std::uint32_t immediate)
    {
        auto const& memory = _writer->memory;
        auto const [slot, endSlice] = wire::GrainCommit::decode(immediate);
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

        auto* header = reinterpret_cast<mxlGrainInfo*>(_staging != nullptr ? _staging->slot(slot) : memory.grains[slot]);
        auto const index = header->index;
        if (wire::slotOf(index, memory.grainCount) != slot)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "slot {} holds the header of grain {}, which belongs in slot {}: the initiator sent slices without first sending the "
                 "header",
                 slot, index, wire::slotOf(index, memory.grainCount));
        }
        if (endSlice != 0 && (header->flags & MXL_GRAIN_FLAG_INVALID) != 0 && header->validSlices == 0)
        {
            fail(MXL_ERR_OUT_OF_RANGE_TOO_LATE,
                 "slot {} is being rewritten with grain {} (it holds the in-flight mark): the grain this completion announced was "
                 "overwritten before this target read it; it is lost",
                 slot, index);
        }
        if (_staging != nullptr)
        {
            header = land(slot, endSlice);
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

    mxlGrainInfo* GrainIngress::land(std::uint32_t slot, std::uint16_t endSlice)
    {
        auto const& staged = *reinterpret_cast<mxlGrainInfo const*>(_staging->slot(slot));
        mxlGrainInfo arrived;
        std::memcpy(&arrived, &staged, sizeof arrived);
        std::atomic_thread_fence(std::memory_order_acquire);

        auto* file = reinterpret_cast<mxlGrainInfo*>(_writer->memory.grains[slot]);
        auto& landed = _landed[slot];
        auto const start = landed.index == arrived.index && landed.endSlice <= endSlice ? landed.endSlice : std::uint16_t{0};
        if (start == 0)
        {
            // What an initiator's in-flight mark does on a host flow: local readers see the slot's new grain as being
            // written, never the old header over new bytes.
            mxlGrainInfo mark;
            std::memcpy(&mark, &arrived, wire::inFlightMarkBytes);
            mark.flags |= MXL_GRAIN_FLAG_INVALID;
            mark.validSlices = 0;
            std::memcpy(file, &mark, wire::inFlightMarkBytes);
            std::atomic_thread_fence(std::memory_order_release);
        }
        landed = Landed{};
        _staging->toDevice(slot, _geometry.payloadRanges(start, endSlice));

        std::atomic_thread_fence(std::memory_order_acquire);
        if (loadAcquire(staged.index) != arrived.index || staged.flags != arrived.flags || staged.validSlices != arrived.validSlices)
        {
            fail(MXL_ERR_OUT_OF_RANGE_TOO_LATE,
                 "slot {} was rewritten (now grain {}) while grain {} was copied into device memory: grain {} is lost", slot,
                 loadAcquire(staged.index), arrived.index, arrived.index);
        }
        std::memcpy(file, &arrived, sizeof(mxlGrainInfo));
        landed = Landed{arrived.index, endSlice};
        return file;
    }
}
