// A connectionless target (shm, efa): one endpoint that any initiator holding the ticket can write to.
#pragma once

#include "common/PollPacer.hpp"
#include "fabrics/backends/ofi/AddressVector.hpp"
#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/backends/ofi/OfiTarget.hpp"
#include "fabrics/backends/ofi/ReceivePool.hpp"
#include "fabrics/backends/ofi/ShmRegion.hpp"

#include <memory>

namespace mxl::fabrics
{
    class RdmTarget final : public OfiTarget
    {
    public:
        RdmTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth, std::uint64_t targetId);

        [[nodiscard]] std::vector<std::uint8_t> address() const override;
        std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) override;
        void screenConnections(Admission admission) override;

    private:
        AddressVector _av;
        // msg: the receive buffers, declared before the endpoint so that the endpoint closes first.
        std::unique_ptr<ReceivePool> _pool;
        Endpoint _endpoint;
        // shm: the hold on the endpoint's region file (ShmRegion.hpp).
        std::optional<ShmRegionHold> _regionHold;

        std::optional<std::uint32_t> handle(Completion const& completion);
    };
}
