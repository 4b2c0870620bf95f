// One read of a fabrics target's next arrival from its owner's loop (the read calls, where events are not started),
// told apart as the target's events would tell it: a grain or a batch of samples, an arrival an initiator overwrote
// before it was read (lost; the library logged which), nothing yet, or a failure of the target.
#pragma once

#include "TransferUnit.hpp"

#include <mxl/fabrics.h>
#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include <cstdint>

namespace mxl::bridge
{
    struct TargetRead
    {
        enum class Outcome
        {
            Nothing,
            Arrived,
            Lost,
            Failed,
        };

        Outcome outcome = Outcome::Nothing;
        // Failed: the read's status.
        mxlStatus status = MXL_STATUS_OK;
        // Arrived, grains: the index, with slices and flags from the flow's header (no slices when it could not be read).
        mxlFabricsGrainArrival grain{};
        // Arrived, samples.
        mxlFabricsSamplesArrival samples{};
    };

    // Reads `target`'s next arrival of `unit`s into the flow `reader` reads: waiting up to `timeoutMs` where the provider
    // can wait (`blocking`), else returning at once.
    [[nodiscard]] TargetRead readTarget(mxlFabricsTarget target, mxlFlowReader reader, TransferUnit unit, bool blocking,
                                        std::uint16_t timeoutMs);
}
