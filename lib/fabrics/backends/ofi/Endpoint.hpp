// fid_ep: an active endpoint — a connection of a MSG provider, or the one endpoint of an RDM target or initiator.
#pragma once

#include "fabrics/backends/ofi/AddressVector.hpp"
#include "fabrics/backends/ofi/CompletionQueue.hpp"
#include "fabrics/backends/ofi/EventQueue.hpp"
#include "fabrics/backends/ofi/MessageFormat.hpp"
#include "fabrics/protocol/RemoteWrite.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::fabrics
{
    class Endpoint
    {
    public:
        // `context` is returned by connection events (fid->context) so they can be routed to their owner.
        Endpoint(Domain const& domain, fi_info* info, void* context);

        // tcp in libfabric 1.17 crashes when an endpoint's CQ is bound for one direction only; always bind both.
        void bind(CompletionQueue const& queue);
        void bind(EventQueue const& events);
        void bind(AddressVector const& av);
        void enable();

        // `requestData`: the private data of the request (may be empty).
        void connect(std::vector<std::uint8_t> const& address, std::span<std::uint8_t const> requestData);
        // The reference target sends a one-byte zero as accept data; initiators of either implementation ignore it.
        void accept();
        void shutdown() noexcept;

        [[nodiscard]] std::vector<std::uint8_t> name() const;

        // Posts one write into `regions[write.remoteRegion]` (a ticket's regions); false when the transmit queue is full
        // (-FI_EAGAIN), throws on other errors.
        bool write(RemoteWrite const& write, std::vector<RemoteRegion> const& regions, fi_addr_t destination, void* context);
        // The msg transport's write: one send of `header` and the write's bytes, its immediate data as remote CQ data.
        // `header` must live until the completion. False when the transmit queue is full (-FI_EAGAIN).
        bool send(RemoteWrite const& write, MessagePlacement const& header, fi_addr_t destination, void* context);
        // Posts a zero-byte receive, needed by providers whose remote CQ data consumes one (FI_RX_CQ_DATA).
        bool postReceive(void* context);
        // Posts a receive into `buffer` (msg transport); `descriptor` is its registration's, or NULL where none is needed.
        bool postReceive(std::span<std::uint8_t> buffer, void* descriptor, void* context);

        [[nodiscard]] fid_ep* get() const noexcept
        {
            return _ep.get();
        }

        [[nodiscard]] fid_t fid() const noexcept
        {
            return _ep.fid();
        }

    private:
        Fid<fid_ep> _ep;
    };
}
