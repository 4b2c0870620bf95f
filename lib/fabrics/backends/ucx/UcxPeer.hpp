// A ticket as the UCX backend knows it: the target's worker address and its regions with their packed rkeys (copied,
// since the table's blobs live only during peer_open). Connections unpack the keys for their own endpoint.
#pragma once

#include "fabrics/transport/fabrics_backend.h"

#include <cstdint>
#include <vector>

namespace mxl::fabrics::ucx
{
    class UcxInitiator;

    struct UcxRegion
    {
        std::uint64_t address = 0;
        std::uint64_t length = 0;
        std::vector<std::uint8_t> packedKey;
    };

    class UcxPeer
    {
    public:
        UcxPeer(UcxInitiator& initiator, std::uint64_t targetId, mxlFabricsBackendBlob address, std::uint32_t addressFormat,
                mxlFabricsBackendRemoteRegion const* regions, std::uint32_t regionCount);

        UcxInitiator& initiator;
        std::uint64_t const targetId;
        std::vector<std::uint8_t> const workerAddress;
        std::vector<UcxRegion> regions;
    };
}
