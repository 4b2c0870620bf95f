#include "fabrics/protocol/GrainEgress.hpp"

#include "common/FlowLayout.hpp"
#include "common/SharedAtomics.hpp"
#include "common/Status.hpp"
#include "fabrics/protocol/Wire.hpp"

#include <atomic>
#include <cstddef>
#include <cstring>
#include <utility>

namespace mxl::fabrics
{
    GrainEgress::StagedHeaders::StagedHeaders(TransportDomain const& domain, std::size_t slotCount)
        : slots{slotCount}
        , headers{std::make_unique<mxlGrainInfo[]>(2 * slotCount)}
        , region{domain.registerMemory(headers.get(), 2 * slotCount * sizeof(mxlGrainInfo), MemoryAccess::LocalSource)}
    {
    }

    GrainEgress::GrainEgress(TransportDomain const& domain, FlowMemory const& memory, GrainGeometry const& geometry,
                             GrainRegions const& local, DeviceStaging* staging, TransportMemory const* deviceRing,
                             std::size_t maxMessageBytes)
        : _domain{domain}
        , _memory{memory}
        , _geometry{geometry}
        , _local{local}
        , _staging{staging}
        , _deviceRing{deviceRing}
        , _stagedPayloads(staging != nullptr ? memory.grainCount : 0)
        , _maxMessageBytes{maxMessageBytes}
    {
    }

    void GrainEgress::admit(TargetInfo const& ticket)
    {
        if (ticket.regions.empty())
        {
            fail(MXL_ERR_INVALID_ARG, "target {} has no grain regions (a sample-flow target, or an empty ticket?)", ticket.id);
        }
        if (ticket.regions.size() > 0x10000)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} has {} grain regions; ring slots travel in 16 bits", ticket.id, ticket.regions.size());
        }
        if (ticket.splitGrainRegions)
        {
            // A header region and a payload region per ring slot (TargetInfo.hpp).
            for (std::size_t index = 0; index < ticket.regions.size(); ++index)
            {
                auto const header = index % 2 == 0;
                auto const expected = header ? layout::grainPayloadOffset : _geometry.payloadBytes();
                if (ticket.regions[index].len != expected)
                {
                    fail(MXL_ERR_INVALID_ARG,
                         "grain size mismatch: target {} has split grain regions, and its region {} (the {} of ring slot {}) is {} bytes, "
                         "expected {}",
                         ticket.id, index, header ? "header" : "payload", index / 2, ticket.regions[index].len, expected);
                }
            }
        }
        else
        {
            for (std::size_t slot = 0; slot < ticket.regions.size(); ++slot)
            {
                if (ticket.regions[slot].len != _geometry.regionBytes())
                {
                    fail(MXL_ERR_INVALID_ARG,
                         "grain size mismatch: target {} region {} is {} bytes, local grains are {} (8192 + {} payload bytes)", ticket.id,
                         slot, ticket.regions[slot].len, _geometry.regionBytes(), _geometry.payloadBytes());
                }
            }
        }
        _staged.erase(ticket.id);
        _staged.emplace(std::piecewise_construct, std::forward_as_tuple(ticket.id),
                        std::forward_as_tuple(_domain, ticket.grainSlotCount()));
    }

    void GrainEgress::forget(std::uint64_t targetId) noexcept
    {
        _staged.erase(targetId);
    }

    void GrainEgress::checkRange(std::uint16_t start, std::uint16_t end) const
    {
        if (start > end || end > _geometry.totalSlices())
        {
            fail(MXL_ERR_INVALID_ARG, "slice range [{}, {}) is not within the grain's {} slices", start, end, _geometry.totalSlices());
        }
    }

    RemoteWrite GrainEgress::probe() const
    {
        RemoteWrite write;
        write.segments = {{_local.slot(0).base(), 1, &_local.slot(0)}};
        return write;
    }

    mxlGrainInfo const& GrainEgress::sourceHeader(std::uint64_t grainIndex) const noexcept
    {
        return *reinterpret_cast<mxlGrainInfo const*>(_memory.grains[wire::slotOf(grainIndex, _memory.grainCount)]);
    }

    GrainEgress::StagedHeaders& GrainEgress::stagedFor(TargetInfo const& ticket)
    {
        auto const found = _staged.find(ticket.id);
        if (found == _staged.end())
        {
            fail(MXL_ERR_NOT_FOUND, "target {} was not added to this grain initiator", ticket.id);
        }
        return found->second;
    }

    bool GrainEgress::stage(std::uint64_t grainIndex, mxlGrainInfo& copy) const noexcept
    {
        auto const& source = sourceHeader(grainIndex);
        if (loadAcquire(source.index) != grainIndex)
        {
            return false;
        }
        std::memcpy(&copy, &source, sizeof copy);
        std::atomic_thread_fence(std::memory_order_acquire);
        return flowHolds(grainIndex) && copy.index == grainIndex;
    }

    bool GrainEgress::flowHolds(std::uint64_t grainIndex) const noexcept
    {
        std::atomic_thread_fence(std::memory_order_acquire);
        return loadAcquire(sourceHeader(grainIndex).index) == grainIndex;
    }

    bool GrainEgress::sourceHolds(std::uint64_t grainIndex) const noexcept
    {
        return flowHolds(grainIndex) &&
               (_staging == nullptr || _stagedPayloads[wire::slotOf(grainIndex, _memory.grainCount)].index == grainIndex);
    }

    void GrainEgress::stagePayload(std::uint64_t grainIndex, std::uint16_t start, std::uint16_t end)
    {
        auto const slot = wire::slotOf(grainIndex, _memory.grainCount);
        auto& staged = _stagedPayloads[slot];
        if (staged.index == grainIndex && start >= staged.from && start <= staged.to)
        {
            if (end > staged.to)
            {
                _staging->toHost(slot, _geometry.payloadRanges(staged.to, end));
                staged.to = end;
            }
            return;
        }
        // Until the copy is done the slot holds no grain whole: a transfer still reading it is a loss.
        staged = StagedPayload{};
        _staging->toHost(slot, _geometry.payloadRanges(start, end));
        staged = StagedPayload{grainIndex, start, end};
    }

    std::optional<TransferPlan> GrainEgress::plan(TargetInfo const& ticket, std::uint64_t grainIndex, std::uint16_t start,
                                                  std::uint16_t end)
    {
        checkRange(start, end);
        if (start == end && end != 0)
        {
            return std::nullopt;
        }
        auto& staged = stagedFor(ticket);
        auto const remoteSlot = wire::slotOf(grainIndex, ticket.grainSlotCount());
        auto const split = ticket.splitGrainRegions;
        auto const headerRegion = wire::headerRegionOf(remoteSlot, split);

        auto result =
            TransferPlan::committing(remoteSlot, SourceRange{grainIndex, 0, end}, &staged.headers[remoteSlot], sizeof(mxlGrainInfo),
                                     *staged.region, headerRegion, wire::GrainCommit{remoteSlot, end}.encode());
        if (!stage(grainIndex, staged.headers[remoteSlot]))
        {
            result.sourceGone = true;
            return result;
        }
        if (_staging != nullptr)
        {
            stagePayload(grainIndex, start, end);
        }

        if (start == 0)
        {
            // Lands before the payload (writes to one target are ordered): a target still reading an older completion for
            // this slot sees a grain in flight, never the old header over new bytes. Later slice ranges of the grain leave
            // the header alone, so that the slices already committed stay readable.
            auto& mark = staged.headers[staged.slots + remoteSlot];
            std::memcpy(&mark, &staged.headers[remoteSlot], wire::inFlightMarkBytes);
            mark.flags |= MXL_GRAIN_FLAG_INVALID;
            mark.validSlices = 0;
            RemoteWrite markWrite;
            markWrite.segments = {{&mark, wire::inFlightMarkBytes, staged.region.get()}};
            markWrite.remoteRegion = headerRegion;
            markWrite.markBytes = wire::inFlightMarkBytes;
            result.payload.push_back(std::move(markWrite));
        }

        for (auto const& piece : splitRanges(_geometry.payloadRanges(start, end), _maxMessageBytes))
        {
            RemoteWrite write;
            write.segments = {payloadSource(grainIndex, piece)};
            write.remoteRegion = wire::payloadRegionOf(remoteSlot, split);
            write.remoteOffset = split ? piece.offset - layout::grainPayloadOffset : piece.offset;
            result.payload.push_back(std::move(write));
        }
        return result;
    }

    LocalSegment GrainEgress::payloadSource(std::uint64_t grainIndex, GrainRange const& piece) const noexcept
    {
        auto const slot = wire::slotOf(grainIndex, _memory.grainCount);
        if (_deviceRing != nullptr)
        {
            auto const* payload = _memory.devicePayloads + slot * _memory.deviceGrainStrideBytes;
            return {payload + (piece.offset - layout::grainPayloadOffset), piece.length, _deviceRing};
        }
        auto const& local = _local.slot(slot);
        return {local.base() + piece.offset, piece.length, &local};
    }

    RemoteWrite GrainEgress::lossCommit(TargetInfo const& ticket, TransferPlan const& plan)
    {
        auto& header = stagedFor(ticket).headers[plan.unit];
        if (plan.sourceGone)
        {
            // Nothing of the source slot belongs to this grain any more: the header is made from the flow's geometry.
            std::memset(&header, 0, sizeof header);
            header.version = layout::grainInfoVersion;
            header.size = sizeof header;
            header.grainSize = static_cast<std::uint32_t>(_geometry.payloadBytes());
            header.totalSlices = _geometry.totalSlices();
        }
        header.index = plan.source.index;
        header.flags |= MXL_GRAIN_FLAG_INVALID;
        header.validSlices = 0;
        auto commit = plan.commit;
        commit.immediate = wire::GrainCommit{plan.unit, 0}.encode();
        return commit;
    }
}
