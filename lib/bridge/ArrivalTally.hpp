// What arrives at a target, counted in transfer units the same way by every front end (a service's receiver session, the
// demo's target): a grain whose slices come in several arrivals counts once, when it is complete (all its slices, or
// flagged invalid), with the bytes of all its slices; a batch of samples counts at once, with the bytes the flow holds
// for it. Indices skipped between arrivals are lost units: a grain per missing index, a batch (of this one's length) per
// started run of missing samples, and so is a grain left incomplete when a later one arrives. An arrival older than
// the newest one seen costs nothing and counts as usual.
//
// Across a rebuild of the target (restart()) the same rule holds while the sender's stream goes on: its first
// arrival after the rebuild is ahead of the newest one before by no more than the units the sender's flow makes in
// the time between the two arrivals, plus a ring and a second of the flow (for the delays of both). A first arrival
// behind the newest one, or further ahead than that, starts a new stream (the sender's source restarted, or a sender
// on another timeline took over): the jump is not loss.
//
// A sender stopped on purpose (expectNewStream()) resumes at the present, however long the pause: its first arrival
// after its trailing writes starts a new stream, and the pause is not loss.
#pragma once

#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include <chrono>
#include <cstdint>
#include <optional>

namespace mxl::bridge
{
    class ArrivalTally
    {
    public:
        using Clock = std::chrono::steady_clock;

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

        // `now`: when it arrived.
        [[nodiscard]] Counted grain(mxlFabricsGrainArrival const& arrival, Clock::time_point now = Clock::now());
        [[nodiscard]] Counted samples(mxlFabricsSamplesArrival const& arrival, Clock::time_point now = Clock::now());

        // The target was rebuilt: the next arrival either goes on with the same stream (the units skipped meanwhile are
        // lost) or starts a new one (nothing lost), as the rule above says.
        void restart() noexcept;

        // The sender stopped on purpose: arrivals before `after` are what it had under way and go on with the stream; the
        // first at or after `after` starts a new stream (nothing before it counts as lost).
        void expectNewStream(Clock::time_point after) noexcept;

    private:
        struct GrainProgress
        {
            std::uint64_t index = 0;
            std::uint16_t validSlices = 0;
            bool completed = false;
        };

        mxlFlowReader _reader;
        std::uint64_t _bytesPerSlice;
        mxlRational _rate;
        // Grains, or samples per channel, the flow's ring holds.
        std::uint64_t _ringLength;
        // The first index after the newest unit that arrived.
        std::optional<std::uint64_t> _nextExpected;
        std::optional<GrainProgress> _grain;
        Clock::time_point _lastArrivalAt{};
        // The next arrival is the first since restart().
        bool _restarted = false;
        // Set by expectNewStream() until the first arrival from then on.
        std::optional<Clock::time_point> _newStreamFrom;

        // The first arrival after a restart, starting at `first`: goes on with the stream before it, or forgets that stream.
        void settleRestart(std::uint64_t first, Clock::time_point now);
        // Before an arrival starting at `first`: the stream before is forgotten when the sender resumes after a stop on purpose.
        void settleResumption(std::uint64_t first, Clock::time_point now);
        // Units lost before [first, last], and the position moved past it.
        std::uint64_t skippedBefore(std::uint64_t first, std::uint64_t last) noexcept;
    };
}
