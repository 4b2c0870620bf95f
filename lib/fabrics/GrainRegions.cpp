#include "GrainRegions.hpp"

namespace mxl::fabrics
{
    GrainRegions::GrainRegions(Domain const& domain, FlowMemory const& memory, GrainGeometry const& geometry, std::uint64_t access)
    {
        _regions.reserve(memory.grainCount);
        for (std::uint32_t slot = 0; slot < memory.grainCount; ++slot)
        {
            _regions.emplace_back(domain, memory.grains[slot], geometry.regionBytes(), access);
        }
    }

    std::vector<RemoteRegion> GrainRegions::remote(Domain const& domain) const
    {
        std::vector<RemoteRegion> result;
        result.reserve(_regions.size());
        for (auto const& region : _regions)
        {
            auto const addr = domain.usesVirtualAddresses() ? reinterpret_cast<std::uintptr_t>(region.base()) : 0;
            result.push_back({addr, region.length(), region.key()});
        }
        return result;
    }
}
