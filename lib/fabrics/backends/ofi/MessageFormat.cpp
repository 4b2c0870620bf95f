#include "fabrics/backends/ofi/MessageFormat.hpp"

#include <fmt/format.h>

#include <cstring>

namespace mxl::fabrics
{
    std::optional<std::string> placeMessage(std::span<std::uint8_t const> received, MessageRegions const& regions)
    {
        MessagePlacement header{};
        if (received.size() < sizeof(header))
        {
            return fmt::format("a receive of {} bytes is shorter than the {}-byte placement header", received.size(), sizeof(header));
        }
        std::memcpy(&header, received.data(), sizeof(header));
        if (header.magic != messagePlacementMagic)
        {
            return fmt::format("a receive starts with {:#x}, not the placement header's magic {:#x}", header.magic, messagePlacementMagic);
        }
        auto const bytes = received.subspan(sizeof(header));
        if (bytes.size() != header.length)
        {
            return fmt::format("a receive carries {} bytes after its header, which announced {}", bytes.size(), header.length);
        }
        if (header.region >= regions.spans.size())
        {
            return fmt::format("a receive names region {}, the target has {}", header.region, regions.spans.size());
        }
        if (header.region >= regions.keys.size() || header.key != regions.keys[header.region])
        {
            return fmt::format("a receive for region {} carries a key that is not the region's", header.region);
        }
        auto const region = regions.spans[header.region];
        if (header.offset > region.size() || header.length > region.size() - header.offset)
        {
            return fmt::format("a receive of {} bytes at offset {} lies outside region {} of {} bytes", header.length, header.offset,
                               header.region, region.size());
        }
        std::memcpy(region.data() + header.offset, bytes.data(), bytes.size());
        return std::nullopt;
    }
}
