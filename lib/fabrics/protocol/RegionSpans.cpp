#include "fabrics/protocol/RegionSpans.hpp"

#include "common/FlowLayout.hpp"

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

    RegionSpans headerSpans(FlowMemory const& memory)
    {
        RegionSpans spans;
        spans.reserve(memory.grainCount);
        for (std::uint32_t slot = 0; slot < memory.grainCount; ++slot)
        {
            spans.emplace_back(memory.grains[slot], layout::grainPayloadOffset);
        }
        return spans;
    }
}
