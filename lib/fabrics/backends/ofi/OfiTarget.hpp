// Targets over libfabric: RcTarget for connection-oriented providers (FI_EP_MSG), RdmTarget for connectionless ones
// (FI_EP_RDM), and what both hold and do with their completions.
#pragma once

#include "fabrics/backends/ofi/CompletionQueue.hpp"
#include "fabrics/backends/ofi/MessageFormat.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/core/TargetTransport.hpp"
#include "fabrics/protocol/GrainRegions.hpp"
#include "fabrics/protocol/RegionSpans.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mxl::fabrics
{
    // Registers `regions` for remote writes and accepts initiators for as long as the target lives; `opened` outlives it.
    // `cqDepth` 0: room for a completion per receive the provider can hold, at least 64. `targetId` names the target in
    // log lines.
    [[nodiscard]] std::unique_ptr<TargetTransport> openOfiTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth,
                                                                 std::uint64_t targetId);

    // What every libfabric target holds: its completion queue, `regions` registered for remote writes (what the ticket
    // publishes of them) and where the msg transport places what it receives. A target's endpoints, its own members,
    // close before these.
    class OfiTarget : public TargetTransport
    {
    public:
        [[nodiscard]] std::uint32_t addressFormat() const noexcept override;
        [[nodiscard]] std::vector<RemoteRegion> regions() const override;

    protected:
        OfiTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth);

        OfiDomain const& _opened;
        CompletionQueue _completions;
        GrainRegions _regions;
        // Where the msg transport places what it receives, and the keys a send must carry.
        MessageRegions _placement;
        // RMA: zero-byte receives per endpoint for remote CQ data (FI_RX_CQ_DATA providers); none over msg.
        std::size_t _receives;
    };

    // The remote CQ data of a completion, if it is one; failed completions are logged and skipped.
    [[nodiscard]] std::optional<std::uint32_t> immediateOf(Completion const& completion);

    // msg transport: receive buffers per endpoint (ReceivePool.hpp), one per completion the queue holds, at most 64 (16
    // MiB) and never more than the receive queue takes.
    [[nodiscard]] std::size_t messageBuffersToPost(fi_info const& info, std::size_t cqDepth) noexcept;
}
