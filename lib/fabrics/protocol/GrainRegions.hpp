// The registrations of a discrete flow: one memory region per ring slot over [grain base, 8192 + grainSize); a target
// registers its bounce-buffer entries the same way, one region per span.
#pragma once

#include "fabrics/backends/ofi/MemoryRegion.hpp"
#include "fabrics/protocol/GrainGeometry.hpp"
#include "fabrics/protocol/RegionSpans.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <vector>

namespace mxl::fabrics
{
    class GrainRegions
    {
    public:
        GrainRegions(Domain const& domain, FlowMemory const& memory, GrainGeometry const& geometry, std::uint64_t access);
        GrainRegions(Domain const& domain, RegionSpans const& spans, std::uint64_t access);

        [[nodiscard]] MemoryRegion const& slot(std::size_t index) const noexcept
        {
            return _regions[index];
        }

        [[nodiscard]] std::size_t count() const noexcept
        {
            return _regions.size();
        }

        // What a ticket publishes: regions in ring-slot order, addresses only when the domain uses virtual addresses.
        [[nodiscard]] std::vector<RemoteRegion> remote(Domain const& domain) const;

    private:
        std::vector<MemoryRegion> _regions;
    };
}
