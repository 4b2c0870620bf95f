// The initiator half of the grain protocol (spec §3.3): which writes move slices [start, end) of one grain into a
// target's ring, and the immediate data `slot | end << 16` that the last of them carries.
#pragma once

#include "Endpoint.hpp"
#include "GrainGeometry.hpp"
#include "GrainRegions.hpp"

#include <vector>

namespace mxl::fabrics
{
    class GrainEgress
    {
    public:
        GrainEgress(GrainGeometry const& geometry, GrainRegions const& local, std::size_t maxMessageBytes);

        // Rejects tickets whose regions cannot hold this flow's grains (grain size mismatch, no regions).
        void checkTarget(TargetInfo const& ticket) const;

        // Throws INVALID_ARG for start > end or end > totalSlices. Empty when there is nothing to send.
        [[nodiscard]] std::vector<RmaWrite> writes(TargetInfo const& ticket, std::uint64_t grainIndex, std::uint16_t start,
                                                   std::uint16_t end) const;

        void checkRange(std::uint16_t start, std::uint16_t end) const;

        // A one-byte write without remote CQ data of the grain header's version byte (1 at both ends) into the
        // target's first region: it makes a connectionless provider set up its path to the peer and changes nothing
        // at the target. Not zero bytes: shm 1.17 never completes a zero-byte write at the initiator.
        [[nodiscard]] RmaWrite probe(TargetInfo const& ticket) const;

    private:
        GrainGeometry _geometry;
        GrainRegions const& _local;
        std::size_t _maxMessageBytes;
    };
}
