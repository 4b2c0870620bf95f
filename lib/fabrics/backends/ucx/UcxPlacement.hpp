// How a write travels in an ordered domain (UcxDomain::ordered): one active message of this id per segment, its data
// the segment's bytes and its header where they go. A commit's last segment carries the immediate, which the target
// hands out once that segment and every earlier one of its connection are in place (UcxPlacements). Host byte order,
// as the immediate's.
#pragma once

#include <cstdint>

namespace mxl::fabrics::ucx
{
    inline constexpr unsigned placementMessageId = 2;

    struct UcxPlacementHeader
    {
        // Where the data lands in the target's memory: inside one of its regions, or the message is dropped.
        std::uint64_t address;
        // The sending connection's tag (random per connection): the target keeps each connection's order apart.
        std::uint64_t connection;
        std::uint32_t immediate;
        // 1: announce `immediate` once placed.
        std::uint32_t announces;
    };
}
