// How an initiator reaches its targets, whatever the transport: peers made from tickets, and the completions and
// connection events of all their connections. What a completion or an event means for a target (state, reason,
// retry, read safety) is the initiator's business.
#pragma once

#include "fabrics/core/ConnectionEvent.hpp"
#include "fabrics/core/TransportPeer.hpp"
#include "fabrics/core/WriteCompletion.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <chrono>
#include <memory>
#include <optional>

namespace mxl::fabrics
{
    class InitiatorTransport
    {
    public:
        // After every peer and connection it made.
        virtual ~InitiatorTransport() = default;

        // INVALID_ARG when the ticket's address format is one this transport cannot reach.
        [[nodiscard]] virtual std::unique_ptr<TransportPeer> peer(TargetInfo const& ticket) = 0;

        // The next completion of a write posted on any connection, or nothing when none is ready; never blocks. Every
        // completion one progress step produced is handed out before the transport is progressed again (read safety).
        virtual std::optional<WriteCompletion> pollCompletion() = 0;
        // The next connection event, or nothing; never blocks. Connectionless transports have none.
        virtual std::optional<ConnectionEvent> pollEvent() = 0;
        // Sleeps in the kernel (only where the domain can wait) until a completion or, while `connecting` (some target is
        // not connected yet), a connection event may be ready; at most `timeout`, possibly less. What it took from the
        // transport comes from the next polls, in order; true when that is a completion. Interrupted on a signal.
        virtual bool wait(std::chrono::milliseconds timeout, bool connecting) = 0;
    };
}
