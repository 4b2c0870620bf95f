// A connectionless target (shm, efa): one endpoint that any initiator holding the ticket can write to.
#pragma once

#include "common/PollPacer.hpp"
#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/backends/ofi/ReceivePool.hpp"
#include "fabrics/backends/ofi/ShmRegion.hpp"
#include "fabrics/core/TargetTransport.hpp"
#include "fabrics/protocol/GrainRegions.hpp"

#include <memory>

namespace mxl::fabrics
{
    class RdmTarget final : public TargetTransport
    {
    public:
        RdmTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth, std::uint64_t targetId);

        [[nodiscard]] std::vector<std::uint8_t> address() const override;
        [[nodiscard]] std::uint32_t addressFormat() const noexcept override;
        [[nodiscard]] std::vector<RemoteRegion> regions() const override;
        std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) override;
        void screenConnections(Admission admission) override;

    private:
        OfiDomain const& _opened;
        CompletionQueue _completions;
        AddressVector _av;
        GrainRegions _regions;
        // msg: where receives are placed (and the keys they must carry), and the buffers, declared before the endpoint so
        // that the endpoint closes first.
        MessageRegions _placement;
        std::unique_ptr<ReceivePool> _pool;
        Endpoint _endpoint;
        // shm: the hold on the endpoint's region file (ShmRegion.hpp).
        std::optional<ShmRegionHold> _regionHold;
        // RMA: zero-byte receives for remote CQ data (FI_RX_CQ_DATA providers).
        std::size_t _receives;

        std::optional<std::uint32_t> handle(Completion const& completion);
    };
}
