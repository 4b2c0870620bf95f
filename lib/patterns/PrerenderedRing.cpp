#include "PrerenderedRing.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace mxl::patterns
{
    GrainPainter paintEachSlotOnce(GrainPainter painter, std::uint64_t ringGrains)
    {
        // Per slot, the lines painted so far (from line 0 on): slice batches arrive in order, so one count is enough.
        auto paintedSlices = std::make_shared<std::vector<std::uint32_t>>(std::max<std::uint64_t>(1, ringGrains), 0);
        return [painter = std::move(painter), paintedSlices](std::uint64_t index, std::uint32_t firstSlice, std::uint32_t sliceCount,
                                                             std::span<std::uint8_t> payload)
        {
            auto& painted = (*paintedSlices)[index % paintedSlices->size()];
            auto const end = firstSlice + sliceCount;
            if (end <= painted)
            {
                return;
            }
            painter(index, firstSlice, sliceCount, payload);
            painted = std::max(painted, end);
        };
    }
}
