// The msg transport's wire (docs/fabrics.md, "Send/receive transport"): each write the RMA transport would post becomes
// one send of a placement header followed by the write's bytes, with the write's immediate data, if any, as the send's
// remote CQ data. The target copies the bytes to where the write would have landed, then reports the immediate data.
#pragma once

#include "fabrics/protocol/RegionSpans.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    // In front of every send, in host byte order (both ends of a msg transfer are this library on one architecture).
    struct MessagePlacement
    {
        std::uint32_t magic;  // messagePlacementMagic: a send of this protocol
        std::uint32_t region; // index into the target's ticket regions
        std::uint64_t offset; // where in the region the bytes land
        std::uint64_t length; // how many bytes follow the header
        std::uint64_t key;    // the region's key from the ticket: as for RMA, only a ticket's holder writes
    };
    static_assert(sizeof(MessagePlacement) == 32);

    inline constexpr std::uint32_t messagePlacementMagic = 0x4d584c31; // "MXL1"
    // The longest write a msg initiator posts (the core splits grain payloads at it) and so the size of each receive
    // buffer a msg target posts, after the header.
    inline constexpr std::size_t messageChunkBytes = std::size_t{256} * 1024;
    inline constexpr std::size_t messageReceiveBytes = sizeof(MessagePlacement) + messageChunkBytes;

    // Where a msg target places what it receives: its regions and, in the same order, the keys its ticket publishes.
    struct MessageRegions
    {
        RegionSpans spans;
        std::vector<std::uint64_t> keys;
    };

    // Copies the bytes of one received send into `regions` where its header says. Nothing is copied, and the reason is
    // returned, when the receive is not one whole send of this protocol: too short for a header, another magic, a
    // length other than the header's (a torn or truncated send), an unknown region, a key other than the region's, or a
    // range outside the region.
    [[nodiscard]] std::optional<std::string> placeMessage(std::span<std::uint8_t const> received, MessageRegions const& regions);
}
