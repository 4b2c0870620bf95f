// What arrives at a target, counted in transfer units the same way by every front end (a service's receiver session, the
// demo's target): a grain whose slices come in several arrivals counts once, when it is complete (all its slices, or
// flagged invalid), with the bytes of all its slices; a batch of samples counts at once, with the bytes the flow holds
// for it. Indices skipped between arrivals are lost units: a grain per missing index, a batch (of this one's length) per
// started run of missing samples, and so is a grain left incomplete when a later one arrives. An arrival older than
// the newest one seen costs nothing and counts as usual.
#pragma once

#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include <cstdint>
#include <optional>

namespace mxl::bridge
{
    class ArrivalTally
    {
    public:
        // One completed unit.
        struct Unit
        {
            // The grain's index, or the batch's last sample index.
            std::uint64_t last = 0;
            std::uint64_t bytes = 0;
            // Samples per channel; 0 for a grain.
            std::uint64_t samples = 0;
        };

        struct Counted
        {
            // Units that never arrived, skipped between the previous arrival and this one.
            std::uint64_t lost = 0;
            // The unit this arrival completed, if it did.
            std::optional<Unit> completed;
        };

        // `reader` reads the flow the target writes (for a batch's bytes); it outlives the tally.
        ArrivalTally(mxlFlowReader reader, mxlFlowConfigInfo const& flow) noexcept;

        [[nodiscard]] Counted grain(mxlFabricsGrainArrival const& arrival);
        [[nodiscard]] Counted samples(mxlFabricsSamplesArrival const& arrival);

        // Forgets where arrivals had got to: the next one loses nothing (a rebuilt target starts afresh).
        void restart() noexcept;

    private:
        struct GrainProgress
        {
            std::uint64_t index = 0;
            std::uint16_t validSlices = 0;
            bool completed = false;
        };

        mxlFlowReader _reader;
        std::uint64_t _bytesPerSlice;
        // The first index after the newest unit that arrived.
        std::optional<std::uint64_t> _nextExpected;
        std::optional<GrainProgress> _grain;

        // Units lost before [first, last], and the position moved past it.
        std::uint64_t skippedBefore(std::uint64_t first, std::uint64_t last) noexcept;
    };
}
