// A connection of a connectionless provider (shm, efa): an endpoint and address vector of its own, bound to the
// initiator's completion queue. shm (1.17) never reports a dead peer, and an endpoint consumes its peers' answers in
// one queue, strictly in order: a write to a dead peer never completes, and on a shared endpoint no later write to any
// peer would either. With one endpoint per target a dead one holds back only itself; it is closed when the target is
// dropped, and a reconnection starts on a fresh endpoint.
#pragma once

#include "fabrics/backends/ofi/AddressVector.hpp"
#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/backends/ofi/OfiPeer.hpp"
#include "fabrics/backends/ofi/ShmRegion.hpp"
#include "fabrics/core/TransportConnection.hpp"

#include <optional>

namespace mxl::fabrics
{
    class RdmConnection final : public TransportConnection
    {
    public:
        // Enables the endpoint and inserts the target's address; the first writes may still meet EAGAIN.
        RdmConnection(OfiDomain const& opened, CompletionQueue const& completions, OfiPeer& peer);

        bool write(RemoteWrite const& write, std::uint64_t context) override;
        [[nodiscard]] std::optional<std::string> check() override;
        // Nothing to tell the target: closing the endpoint is all.
        void disconnect() noexcept override;

    private:
        // Declared first, so that it outlives the endpoint bound to it.
        AddressVector _av;
        // shm names each endpoint "<src_addr>:<uid>:<endpoint number>", so endpoints made from one info never collide.
        Endpoint _endpoint;
        // shm: the hold on the endpoint's own region file (ShmRegion.hpp).
        std::optional<ShmRegionHold> _regionHold;
        fi_addr_t _address = FI_ADDR_UNSPEC;
        OfiPeer& _peer;
    };
}
