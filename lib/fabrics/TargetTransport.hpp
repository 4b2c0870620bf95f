// How a target meets its initiators, whatever the transport: the address and regions its ticket publishes, and the
// immediate data of each transfer that arrived. What the immediate data means (slots, entries, read safety) is the
// caller's business.
#pragma once

#include "TargetInfo.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace mxl::fabrics
{
    class TargetTransport
    {
    public:
        virtual ~TargetTransport() = default;

        // Where initiators reach this target, and the ticket's number for the format of that address.
        [[nodiscard]] virtual std::vector<std::uint8_t> address() const = 0;
        [[nodiscard]] virtual std::uint32_t addressFormat() const noexcept = 0;
        // The registered spans as a ticket publishes them, in the order they were given.
        [[nodiscard]] virtual std::vector<RemoteRegion> regions() const = 0;

        // Drives connections and returns the immediate data of the next arrived transfer, waiting up to `timeout`
        // (zero: one non-blocking pass).
        virtual std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) = 0;
    };
}
