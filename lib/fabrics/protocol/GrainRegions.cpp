#include "fabrics/protocol/GrainRegions.hpp"

namespace mxl::fabrics
{
    GrainRegions::GrainRegions(Domain const& domain, FlowMemory const& memory, GrainGeometry const& geometry, std::uint64_t access)
        : GrainRegions{domain, grainSpans(memory, geometry), access}
    {
    }

    GrainRegions::GrainRegions(Domain const& domain, RegionSpans const& spans, std::uint64_t access)
    {
        _regions.reserve(spans.size());
        for (auto const& span : spans)
        {
            _regions.emplace_back(domain, span.data(), span.size(), access);
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
