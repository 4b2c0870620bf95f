// What a connection-oriented transport reports about an initiator's connection attempt. The transport gives facts and
// its own words; the initiator decides what they mean for the target (state, reason, status, retry).
#pragma once

#include <cstdint>
#include <string>

namespace mxl::fabrics
{
    struct ConnectionEvent
    {
        enum class Type
        {
            Established,
            // Could not connect, or the connection broke: `reason` is the transport's explanation.
            Failed,
            // The target shut the connection down in order.
            ClosedByPeer,
        };

        // The token of the connection attempt the event belongs to (TargetLink::token).
        std::uint64_t token = 0;
        Type type = Type::Established;
        std::string reason;
    };
}
