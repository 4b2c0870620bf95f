// A live path from an initiator to one target, as the transport made it: it takes the protocol's writes. It lives in a
// target link's connecting and connected states; a reconnection makes a new one.
#pragma once

#include "fabrics/protocol/RemoteWrite.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::fabrics
{
    class TransportConnection
    {
    public:
        // Releases the path; writes still in flight may complete later, with their contexts.
        virtual ~TransportConnection() = default;

        // Posts one write; its completion carries `context`. False when the transmit queue is full (completions free it);
        // throws on other failures, after which this connection takes no writes.
        virtual bool write(RemoteWrite const& write, std::uint64_t context) = 0;
        // Why the target has ended, or nullopt while it may live: for transports that cannot report a dead peer, whose
        // writes then simply never complete. Asked only while writes wait.
        [[nodiscard]] virtual std::optional<std::string> check() = 0;
        // Tells the target an established connection is being closed.
        virtual void disconnect() noexcept = 0;
    };
}
