// The receiving end of a moved flow, seen from a service test: a FlowChecker on the target's copy of the flow that a
// PatternSource writes, and the requirement that grains keep arriving intact.
#pragma once

#include "FlowChecker.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace mxl::test
{
    // Requires `grains` more grains verified within `timeout` and none mismatched; `context`, called only on a failure,
    // says what was going on.
    void requireFlowing(FlowChecker& verifier, std::uint64_t grains, std::chrono::milliseconds timeout,
                        std::function<std::string()> const& context);

    // The same within 30 s (waits end at the grains, so a loaded machine only needs the room); `when` names the moment
    // in a failure.
    void requireFlowing(FlowChecker& verifier, std::uint64_t grains, std::string const& when);
}
