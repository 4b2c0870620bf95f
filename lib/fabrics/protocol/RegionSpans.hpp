// The memory a target registers, one span per remote region of its ticket: the grains of a discrete flow (ring-slot
// order, header and payload) or the entries of a continuous flow's bounce buffer.
#pragma once

#include "fabrics/protocol/GrainGeometry.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::fabrics
{
    using RegionSpans = std::vector<std::span<std::uint8_t>>;

    [[nodiscard]] RegionSpans grainSpans(FlowMemory const& memory, GrainGeometry const& geometry);
    // The grain headers alone, layout::grainPayloadOffset bytes per ring slot: a device flow's grain files, whose
    // payloads are registered directly in device memory.
    [[nodiscard]] RegionSpans headerSpans(FlowMemory const& memory);
}
