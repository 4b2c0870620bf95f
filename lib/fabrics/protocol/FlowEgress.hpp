// What an initiator sends, chosen by its flow's format: grains (GrainEgress.hpp) or sample batches
// (SampleEgress.hpp). Each protocol's registrations live here so that the initiator's connection handling is the
// same for both.
#pragma once

#include "fabrics/protocol/GrainEgress.hpp"
#include "fabrics/protocol/SampleEgress.hpp"

#include <memory>
#include <optional>
#include <string>

namespace mxl::fabrics
{
    class FlowEgress
    {
    public:
        // A device flow: `deviceRing` (its payload ring registered with `domain`) is the payload source, or, null, its
        // payloads are staged, `stagedBecause` says why in the log line.
        FlowEgress(TransportDomain const& domain, FlowMemory const& memory, std::size_t maxGatherSegments, std::size_t maxMessageBytes,
                   std::unique_ptr<TransportMemory> deviceRing, std::string const& stagedBecause);

        // Rejects tickets of the other flavour or of another geometry; prepares per-target state.
        void admit(TargetInfo const& ticket);
        void forget(std::uint64_t targetId) noexcept;

        [[nodiscard]] RemoteWrite probe() const;

        // The target's ring slot or bounce-buffer entry that the next transfer of `range` fills.
        [[nodiscard]] std::uint32_t unitFor(TargetInfo const& ticket, SourceRange const& range) const;
        // Whether the source still holds what a transfer's payload read (asked once its payload writes completed).
        [[nodiscard]] bool sourceHolds(SourceRange const& range) const noexcept;
        // The commit that tells a target a transfer's data is lost (grains: the header flagged invalid), or nothing when
        // the protocol has no way to say it (samples: the entry is simply never announced).
        [[nodiscard]] std::optional<RemoteWrite> lossCommit(TargetInfo const& ticket, TransferPlan const& plan);

        // INVALID_STATE when the flow is of the other flavour.
        [[nodiscard]] GrainEgress& grains();
        [[nodiscard]] SampleEgress& samples();

    private:
        // Grain registrations and their plan; not movable, the egress refers to the regions.
        struct Grains
        {
            Grains(TransportDomain const& domain, FlowMemory const& memory, std::size_t maxMessageBytes,
                   std::unique_ptr<TransportMemory> deviceRing, std::string const& stagedBecause);

            GrainGeometry geometry;
            std::unique_ptr<TransportMemory> deviceRing;
            std::unique_ptr<DeviceStaging> staging;
            GrainRegions local;
            GrainEgress egress;
        };

        std::unique_ptr<Grains> _grains;
        std::unique_ptr<SampleEgress> _samples;
    };
}
