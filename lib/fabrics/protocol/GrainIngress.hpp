// The target half of the grain protocol (Wire.hpp): remote CQ data `slot | endSlice << 16` says that the initiator's
// writes into ring slot `slot` landed; the grain index is in the header those writes carried.
#pragma once

#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include "fabrics/protocol/DeviceStaging.hpp"
#include "fabrics/protocol/GrainGeometry.hpp"

#include <cstdint>
#include <vector>

namespace mxl::fabrics
{
    class GrainIngress
    {
    public:
        // For a device flow the initiators write into the slots of `staging`; each arrival's new slices are copied into
        // device memory and its header into the grain file before the grain is published.
        GrainIngress(mxlFlowWriter writer, GrainGeometry const& geometry, DeviceStaging* staging);

        // Validates the immediate data, sets the slot's validSlices, publishes the grain to local readers through the
        // public writer API (OpenGrain keeps the RMA-written header when the slot already holds that index, CommitGrain
        // moves the head and wakes readers) and returns what it published: the grain and, from its header, how much of it
        // is there.
        mxlFabricsGrainArrival arrive(std::uint32_t immediate);

    private:
        // The slices of which grain a slot's device payload holds, so that a later slice range copies only its own.
        struct Landed
        {
            std::uint64_t index = ~std::uint64_t{0};
            std::uint16_t endSlice = 0;
        };

        // Copies the staged slices [landed, endSlice) into device memory (the grain file marked in flight first when the
        // slot starts a new grain), checks that the staging slot still holds the same grain, and copies its header into
        // the grain file, which it returns. TOO_LATE when an initiator rewrote the slot meanwhile.
        mxlGrainInfo* land(std::uint32_t slot, std::uint16_t endSlice);

        mxlFlowWriter _writer;
        GrainGeometry _geometry;
        DeviceStaging* _staging;
        std::vector<Landed> _landed;
    };
}
