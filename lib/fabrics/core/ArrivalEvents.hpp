// A target's arrivals as events (include/mxl/fabrics_events.h): one read of the target, as ReadGrain or ReadSamples
// would make it, told as the event of the arrival, of its loss or of the failure that ends the reading; and a
// connection change as its event. The library thread of a target's events and the application's own dispatch read
// through these.
#pragma once

#include "fabrics/core/TargetTransport.hpp"

#include <mxl/fabrics_events.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mxl::fabrics
{
    struct Target;

    // The event of the next arrival within `timeout` (zero: one non-blocking pass), its loss, or the failure
    // (TARGET_FAILED) after which no read may follow; nullopt when nothing came, or a signal ended the wait.
    [[nodiscard]] std::optional<mxlFabricsEvent> readArrivalEvent(Target& target, std::chrono::milliseconds timeout);

    [[nodiscard]] mxlFabricsEvent connectionEvent(ConnectionChange const& change);

    // TARGET_FAILED for `status` with `text`, logged: the reading of target `targetId` stops.
    [[nodiscard]] mxlFabricsEvent failureEvent(std::uint64_t targetId, mxlStatus status, std::string_view text);
}
