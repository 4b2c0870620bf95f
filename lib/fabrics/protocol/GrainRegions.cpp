#include "fabrics/protocol/GrainRegions.hpp"

namespace mxl::fabrics
{
    GrainRegions::GrainRegions(TransportDomain const& domain, RegionSpans const& spans, MemoryAccess access)
    {
        _regions.reserve(spans.size());
        for (auto const& span : spans)
        {
            _regions.push_back(domain.registerMemory(span.data(), span.size(), access));
        }
    }

    std::vector<RemoteRegion> GrainRegions::remote() const
    {
        std::vector<RemoteRegion> result;
        result.reserve(_regions.size());
        for (auto const& region : _regions)
        {
            result.push_back(region->remote());
        }
        return result;
    }
}
