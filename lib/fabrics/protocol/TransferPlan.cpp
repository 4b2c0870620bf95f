#include "fabrics/protocol/TransferPlan.hpp"

namespace mxl::fabrics
{
    TransferPlan TransferPlan::committing(std::uint32_t unit, SourceRange const& source, void const* header, std::size_t headerBytes,
                                          TransportMemory const& memory, std::uint32_t remoteRegion, std::uint32_t immediate)
    {
        TransferPlan plan;
        plan.unit = unit;
        plan.source = source;
        plan.commit.segments = {{header, headerBytes, &memory}};
        plan.commit.remoteRegion = remoteRegion;
        plan.commit.immediate = immediate;
        return plan;
    }
}
