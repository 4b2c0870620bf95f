// Writes grains of a video or data flow: open a slot, fill the payload, commit (in parts for sliced grains).
#pragma once

#include "FlowWriter.hpp"

#include <cstdint>
#include <optional>

namespace mxl
{
    class DiscreteFlowWriter final : public FlowWriter
    {
    public:
        using FlowWriter::FlowWriter;

        [[nodiscard]] mxlGrainInfo grainInfo(std::uint64_t index) const noexcept;

        // Claims slot `index % grainCount` for grain `index`. A slot that already holds `index` keeps its validSlices
        // and flags: it is a partial grain being continued, or one whose header a fabrics initiator wrote remotely.
        void openGrain(std::uint64_t index, mxlGrainInfo& grain, std::uint8_t*& payload);

        void cancelGrain() noexcept
        {
            _openIndex.reset();
        }

        // Publishes the open grain as described by `grain` (flags, validSlices, user bytes); the grain stays open until
        // all its slices are valid.
        void commitGrain(mxlGrainInfo const& grain);

    private:
        std::optional<std::uint64_t> _openIndex;
    };
}
