// The target half of the grain protocol (spec §3.3): remote CQ data `slot | endSlice << 16` says that the initiator's
// writes into ring slot `slot` landed; the grain index is in the header those writes carried.
#pragma once

#include <mxl/flow.h>

#include "fabrics/protocol/GrainGeometry.hpp"

#include <cstdint>

namespace mxl::fabrics
{
    // What a completion published: the grain and, from its header, how much of it is there.
    struct GrainArrival
    {
        std::uint64_t index = 0;
        std::uint16_t validSlices = 0;
        std::uint16_t totalSlices = 0;
        std::uint32_t flags = 0;
    };

    class GrainIngress
    {
    public:
        GrainIngress(mxlFlowWriter writer, GrainGeometry const& geometry);

        // Validates the immediate data, sets the slot's validSlices, publishes the grain to local readers through the
        // public writer API (OpenGrain keeps the RMA-written header when the slot already holds that index, CommitGrain
        // moves the head and wakes readers) and returns what it published.
        GrainArrival arrive(std::uint32_t immediate);

    private:
        mxlFlowWriter _writer;
        GrainGeometry _geometry;
    };
}
