// How a write travels in an ordered domain (UcxDomain::ordered): one active message of this id per segment, its data
// the segment's bytes and its header where they go, always by rendezvous. A commit's last segment carries the immediate,
// which the target hands out once that segment and every earlier one of its connection are in place (UcxArrivals).
// Host byte order, as the immediate's. A target without the handler of this id (before it existed) fails such writes.
#pragma once

#include <cstdint>
#include <type_traits>

namespace mxl::fabrics::ucx
{
    inline constexpr unsigned placementMessageId = 2;

    struct UcxPlacementHeader
    {
        // Where the data lands in the target's memory: inside memory its domain registered for remote writes, or the
        // message is refused.
        std::uint64_t address;
        // The sending connection's tag (random per connection): the target keeps each connection's order apart.
        std::uint64_t connection;
        std::uint32_t immediate;
        // 1: announce `immediate` once placed.
        std::uint32_t announces;
    };

    static_assert(sizeof(UcxPlacementHeader) == 24 && std::is_trivially_copyable_v<UcxPlacementHeader>, "the header is a wire format");
}
