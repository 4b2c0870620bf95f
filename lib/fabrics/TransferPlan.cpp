#include "TransferPlan.hpp"

namespace mxl::fabrics
{
    TransferPlan TransferPlan::committing(std::uint32_t unit, SourceRange const& source, void const* header, std::size_t headerBytes,
                                          void* descriptor, RemoteRegion const& remote, std::uint32_t immediate)
    {
        TransferPlan plan;
        plan.unit = unit;
        plan.source = source;
        plan.commit.local = header;
        plan.commit.length = headerBytes;
        plan.commit.descriptor = descriptor;
        plan.commit.remoteAddress = remote.addr;
        plan.commit.remoteKey = remote.rkey;
        plan.commit.carriesImmediate = true;
        plan.commit.immediate = immediate;
        return plan;
    }
}
