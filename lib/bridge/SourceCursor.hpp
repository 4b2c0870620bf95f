// A sender's position in its source flow, and how what is there is sent: one transfer unit at a time, a grain (video,
// data) or a batch of samples (audio). A sender drives the connection, healing and accounting the same way for both;
// only reading the source differs, behind this interface. A unit is posted by its kind alone: SourceUnit carries what
// either kind of transfer names.
#pragma once

#include "bridge/TransferUnit.hpp"

#include <mxl/fabrics.h>
#include <mxl/fabrics_batch.h>
#include <mxl/flow.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace mxl::bridge
{
    // A read found the source's flow deleted, or re-created by its writer: its reader must be made again.
    class SourceGone : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    // What one transfer moves.
    struct SourceUnit
    {
        // The grain's index, or the batch's last sample index (a range of samples ends at and includes its head).
        std::uint64_t index = 0;
        // Grains: the slices to send, [startSlice, endSlice); (0, 0) for an invalid grain (its header alone moves the
        // target's ring).
        std::uint16_t startSlice = 0;
        std::uint16_t endSlice = 0;
        // Grains: this unit ends the grain (its last slices, or an invalid grain). Batches: always.
        bool completesGrain = true;
        // Batches: samples per channel.
        std::uint64_t samples = 0;
        std::uint64_t bytes = 0;
    };

    class SourceCursor
    {
    public:
        enum class Outcome
        {
            // `unit` is in the source flow, ready to send.
            Ready,
            // Nothing is due yet: the source is not producing, or is ahead of the clock. Silence is then no stall.
            NotDue,
            // The source's ring moved past the cursor, which now stands at the present; `skippedUnits` were never sent.
            Gone,
        };

        struct Read
        {
            Outcome outcome = Outcome::NotDue;
            SourceUnit unit;
            std::uint64_t skippedUnits = 0;
        };

        virtual ~SourceCursor() = default;

        [[nodiscard]] TransferUnit unit() const noexcept
        {
            return _unit;
        }

        // Moves to what the source is writing now, never back: after a (re)connection the units of the outage are not
        // chased. Returns how many units that skipped (0 at the first start).
        virtual std::uint64_t startAtPresent() = 0;

        // Sending stopped on purpose: the next startAtPresent() skips nothing, however long the pause.
        virtual void forgetPosition() noexcept = 0;

        // The unit at the cursor. Waits for it at most 100 ms (signals and watchdog pings must not wait longer); throws
        // SourceGone when the flow was deleted or re-created, std::runtime_error when it cannot be read otherwise (naming
        // the flow, and what happened to it).
        [[nodiscard]] virtual Read read() = 0;

        // Posts `unit` (from read()) to every connected target.
        [[nodiscard]] mxlStatus post(mxlFabricsInitiator initiator, SourceUnit const& unit) const;

        // Adds `unit` to `batch` (fabrics_batch.h), for `target` alone.
        [[nodiscard]] mxlStatus addTo(mxlFabricsInitiator initiator, mxlFabricsBatch batch, mxlFabricsTargetInfo target,
                                      SourceUnit const& unit) const;

        // Past the unit read. A grain sent by slices goes on with its next slices when `delivered`, else with the next
        // grain (its target will not see the rest).
        virtual void advance(bool delivered) = 0;

    protected:
        // `flowId` names the flow in errors.
        SourceCursor(TransferUnit unit, mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId);

        // How long `units` grains or samples last at the flow's rate.
        [[nodiscard]] std::uint64_t periodNs(std::uint64_t units) const noexcept;
        // Throws for a read of `what` that failed with `status`: SourceGone for a deleted or re-created flow, else
        // std::runtime_error.
        [[noreturn]] void failRead(std::string const& what, mxlStatus status) const;

        mxlFlowReader _reader;
        mxlRational _rate;
        std::string _flowId;

    private:
        TransferUnit _unit;
    };

    // How grains are read: whole once their writer committed them, or slice range by slice range as the writer
    // commits them (lower latency for a writer that commits a grain in parts).
    enum class GrainReading
    {
        Whole,
        BySlices,
    };

    // A GrainCursor for discrete flows, a SampleCursor for continuous ones. `flowId` names the flow in errors.
    [[nodiscard]] std::unique_ptr<SourceCursor> makeSourceCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow,
                                                                 std::string const& flowId, GrainReading grains = GrainReading::Whole);
}
