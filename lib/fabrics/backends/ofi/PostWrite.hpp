// One write of the core posted on an initiator's endpoint by the transport its domain carries: an RMA write into the
// ticket's region, or (msg) a send of a placement header and the bytes (MessageFormat.hpp).
#pragma once

#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/backends/ofi/SentHeaders.hpp"

#include <cstdint>
#include <vector>

namespace mxl::fabrics
{
    // `sent` is the initiator's, for the msg transport; NULL for RMA. False when the transmit queue is full.
    bool postWrite(Endpoint& endpoint, RemoteWrite const& write, std::vector<RemoteRegion> const& regions, SentHeaders* sent,
                   fi_addr_t destination, std::uint64_t context);
}
