// --prerendered video: each ring slot is painted the first time a grain lands in it and left as it is after that, so
// from the second pass over the ring on a grain costs only its open and commits. The picture then repeats with the
// ring's period (grain i shows what the first grain of its slot showed): still real media, still committed on its TAI
// deadline, and a capacity measurement sees the transport instead of the renderer.
#pragma once

#include "DiscreteGrainWriter.hpp"

#include <cstdint>

namespace mxl::patterns
{
    [[nodiscard]] GrainPainter paintEachSlotOnce(GrainPainter painter, std::uint64_t ringGrains);
}
