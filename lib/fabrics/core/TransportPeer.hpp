// One target as an initiator's transport knows it, for the lifetime of its link: its address and regions resolved from
// the ticket once, and what the transport learns about it across connections.
#pragma once

#include "fabrics/core/TransportConnection.hpp"

#include <cstdint>
#include <memory>
#include <span>

namespace mxl::fabrics
{
    class TransportPeer
    {
    public:
        virtual ~TransportPeer() = default;

        // Starts a connection to the target without waiting for it. Connection-oriented transports report its outcome as
        // connection events carrying `token`, and send `requestData` (may be empty) with the request, for the target's
        // admission. Throws NOT_READY with the reason when the target is known to have ended.
        [[nodiscard]] virtual std::unique_ptr<TransportConnection> connect(std::uint64_t token,
                                                                           std::span<std::uint8_t const> requestData) = 0;
    };
}
