// Several flows of one source (a video, its audio flows, its data flow) in one process: one TargetApp or InitiatorApp
// per flow, each with its own fabrics target or initiator (its own endpoint) and driven by its own thread. Apps are
// set up one after the other, so that a target prints its tickets in -f order; a failing flow stops the others as a
// signal would, and its error is the process's.
#pragma once

#include "DemoOptions.hpp"

#include <vector>

namespace mxl::demo
{
    // The options of each flow: flow i, with ticket i when there are several flows (all tickets with one flow).
    [[nodiscard]] std::vector<DemoOptions> optionsPerFlow(DemoOptions const& options);

    // A target per flow, and the SyncConsumer over them when there are several; a RedundantTargetApp with --path.
    void runTargets(std::vector<DemoOptions> const& flows);

    void runInitiators(std::vector<DemoOptions> const& flows);
}
