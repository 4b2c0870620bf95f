// Targets over libfabric: RcTarget for connection-oriented providers (FI_EP_MSG), RdmTarget for connectionless ones
// (FI_EP_RDM), and what both do with their completions.
#pragma once

#include "fabrics/backends/ofi/CompletionQueue.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/core/TargetTransport.hpp"
#include "fabrics/protocol/GrainRegions.hpp"
#include "fabrics/protocol/RegionSpans.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace mxl::fabrics
{
    // Registers `regions` for remote writes and accepts initiators for as long as the target lives; `opened` outlives it.
    // `cqDepth` 0: room for a completion per receive the provider can hold, at least 64. `targetId` names the target in
    // log lines.
    [[nodiscard]] std::unique_ptr<TargetTransport> openOfiTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth,
                                                                 std::uint64_t targetId);

    // The remote CQ data of a completion, if it is one; failed completions are logged and skipped.
    [[nodiscard]] std::optional<std::uint32_t> immediateOf(Completion const& completion);

    // Providers with FI_RX_CQ_DATA consume one posted receive per remote CQ data; one per write that can be in flight.
    [[nodiscard]] std::size_t receivesToPost(fi_info const& info) noexcept;

    // The keys `regions` publish, in order: what a msg send must carry (MessageFormat.hpp).
    [[nodiscard]] std::vector<std::uint64_t> keysOf(GrainRegions const& regions);

    // msg transport: receive buffers per endpoint (ReceivePool.hpp), one per completion the queue holds, at most 64 (16
    // MiB) and never more than the receive queue takes.
    [[nodiscard]] std::size_t messageBuffersToPost(fi_info const& info, std::size_t cqDepth) noexcept;
}
