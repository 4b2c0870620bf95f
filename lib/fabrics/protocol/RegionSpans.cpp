#include "fabrics/protocol/RegionSpans.hpp"

namespace mxl::fabrics
{
    RegionSpans grainSpans(FlowMemory const& memory, GrainGeometry const& geometry)
    {
        RegionSpans spans;
        spans.reserve(memory.grainCount);
        for (std::uint32_t slot = 0; slot < memory.grainCount; ++slot)
        {
            spans.emplace_back(memory.grains[slot], geometry.regionBytes());
        }
        return spans;
    }
}
