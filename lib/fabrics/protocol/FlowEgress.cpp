#include "fabrics/protocol/FlowEgress.hpp"

#include "common/Status.hpp"
#include "fabrics/protocol/Wire.hpp"

namespace mxl::fabrics
{
    namespace
    {
        // What the payload writes read: the header-only grain files beside a directly registered device ring, the
        // staging slots, or the host flow's grains.
        RegionSpans localSpans(FlowMemory const& memory, GrainGeometry const& geometry, bool direct, DeviceStaging const* staging)
        {
            if (direct)
            {
                return headerSpans(memory);
            }
            return staging != nullptr ? staging->spans() : grainSpans(memory, geometry);
        }
    }

    FlowEgress::Grains::Grains(TransportDomain const& domain, FlowMemory const& memory, std::size_t maxMessageBytes,
                               std::unique_ptr<TransportMemory> ring, std::string const& stagedBecause)
        : geometry{GrainGeometry::of(memory, "initiator")}
        , deviceRing{std::move(ring)}
        , staging{DeviceStaging::needed(memory) && !deviceRing ? std::make_unique<DeviceStaging>(memory, geometry) : nullptr}
        , local{domain, localSpans(memory, geometry, deviceRing != nullptr, staging.get()), MemoryAccess::LocalSource}
        , egress{domain, memory, geometry, local, staging.get(), deviceRing.get(), maxMessageBytes}
    {
        if (staging)
        {
            log::info("fabrics initiator: its flow's {} (staged: {})", staging->describe(), stagedBecause);
        }
        if (deviceRing)
        {
            log::info("fabrics initiator: its flow's {}", describeDirect(memory));
        }
    }

    FlowEgress::FlowEgress(TransportDomain const& domain, FlowMemory const& memory, std::size_t maxGatherSegments,
                           std::size_t maxMessageBytes, std::unique_ptr<TransportMemory> deviceRing, std::string const& stagedBecause)
    {
        if (carriesSamples(memory))
        {
            _samples = std::make_unique<SampleEgress>(domain, memory, maxGatherSegments);
        }
        else
        {
            _grains = std::make_unique<Grains>(domain, memory, maxMessageBytes, std::move(deviceRing), stagedBecause);
        }
    }

    void FlowEgress::admit(TargetInfo const& ticket)
    {
        if (_samples)
        {
            _samples->admit(ticket);
            return;
        }
        if (ticket.bounceBuffer)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} has a bounceBufferInfo: it receives samples, this initiator sends grains", ticket.id);
        }
        _grains->egress.admit(ticket);
    }

    void FlowEgress::forget(std::uint64_t targetId) noexcept
    {
        if (_samples)
        {
            _samples->forget(targetId);
        }
        else
        {
            _grains->egress.forget(targetId);
        }
    }

    RemoteWrite FlowEgress::probe() const
    {
        return _samples ? _samples->probe() : _grains->egress.probe();
    }

    std::uint32_t FlowEgress::unitFor(TargetInfo const& ticket, SourceRange const& range) const
    {
        if (_samples)
        {
            return _samples->nextEntry(ticket);
        }
        return wire::slotOf(range.index, ticket.grainSlotCount());
    }

    bool FlowEgress::sourceHolds(SourceRange const& range) const noexcept
    {
        return _samples ? _samples->sourceHolds(range.index, range.count) : _grains->egress.sourceHolds(range.index);
    }

    std::optional<RemoteWrite> FlowEgress::lossCommit(TargetInfo const& ticket, TransferPlan const& plan)
    {
        if (_samples)
        {
            return std::nullopt;
        }
        return _grains->egress.lossCommit(ticket, plan);
    }

    GrainEgress& FlowEgress::grains()
    {
        if (!_grains)
        {
            fail(MXL_ERR_INVALID_STATE, "this initiator's flow carries samples: use TransferSamples, not TransferGrain");
        }
        return _grains->egress;
    }

    SampleEgress& FlowEgress::samples()
    {
        if (!_samples)
        {
            fail(MXL_ERR_INVALID_STATE, "this initiator's flow carries grains: use TransferGrain, not TransferSamples");
        }
        return *_samples;
    }
}
