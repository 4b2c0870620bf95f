// The registrations of a discrete flow: one memory region per ring slot over [grain base, 8192 + grainSize) of the
// flow's grains or of a device flow's staging slots; a target registers its bounce-buffer entries the same way, one
// region per span.
#pragma once

#include "fabrics/protocol/TransportDomain.hpp"
#include "fabrics/protocol/GrainGeometry.hpp"
#include "fabrics/protocol/RegionSpans.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <vector>

namespace mxl::fabrics
{
    class GrainRegions
    {
    public:
        GrainRegions(TransportDomain const& domain, RegionSpans const& spans, MemoryAccess access);

        [[nodiscard]] TransportMemory const& slot(std::size_t index) const noexcept
        {
            return *_regions[index];
        }

        [[nodiscard]] std::size_t count() const noexcept
        {
            return _regions.size();
        }

        // What a ticket publishes: regions in ring-slot order.
        [[nodiscard]] std::vector<RemoteRegion> remote() const;

    private:
        std::vector<std::unique_ptr<TransportMemory>> _regions;
    };
}
