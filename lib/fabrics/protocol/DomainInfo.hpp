// What a transport reports about an interface it opened: the facts the protocol plans with.
#pragma once

#include "fabrics/protocol/Transport.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxl::fabrics
{
    struct DomainInfo
    {
        // No handshake: a path is confirmed by a probe write, and an initiator with no targets reports OK (as the SDK
        // does for RDM). Otherwise the transport reports connection events.
        bool connectionless = false;
        // Connection requests carry data of the initiator's (a proof of the ticket key, or an incarnation mark).
        bool requestData = false;
        // Writes to one peer land in posting order: payload writes may complete when read, since the commit after them
        // completes when delivered.
        bool orderedWrites = false;
        // Completions can be slept for in the kernel; otherwise they are polled.
        bool canWait = false;
        // Longest single write; the initiator clamps it further by the caps' maxMessageSize.
        std::uint64_t maxMessageBytes = 0;
        // Most local segments in one write.
        std::size_t maxGatherSegments = 0;
        // How writes travel over this interface (never Auto) and why it was chosen ("asked", or what the interface lacks).
        Transport transport = Transport::Rma;
        std::string transportReason = "asked";
    };
}
