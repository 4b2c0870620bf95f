// What an initiator sends, chosen by its flow's format: grains (spec §3.3) or sample batches (spec §3.4). Each
// protocol's registrations live here so that the initiator's connection handling is the same for both.
#pragma once

#include "GrainEgress.hpp"
#include "SampleEgress.hpp"

#include <memory>

namespace mxl::fabrics
{
    class FlowEgress
    {
    public:
        FlowEgress(Domain const& domain, FlowMemory const& memory, fi_info const& info, std::size_t maxMessageBytes);

        // Rejects tickets of the other flavour or of another geometry; prepares per-target state.
        void admit(TargetInfo const& ticket);
        void forget(std::uint64_t targetId) noexcept;

        [[nodiscard]] RmaWrite probe(TargetInfo const& ticket) const;

        // INVALID_STATE when the flow is of the other flavour.
        [[nodiscard]] GrainEgress const& grains() const;
        [[nodiscard]] SampleEgress& samples();

    private:
        // Grain registrations and their plan; not movable, the egress refers to the regions.
        struct Grains
        {
            Grains(Domain const& domain, FlowMemory const& memory, std::size_t maxMessageBytes);

            GrainGeometry geometry;
            GrainRegions local;
            GrainEgress egress;
        };

        std::unique_ptr<Grains> _grains;
        std::unique_ptr<SampleEgress> _samples;
    };
}
