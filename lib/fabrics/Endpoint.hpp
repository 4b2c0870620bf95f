// fid_ep: an active endpoint — a connection of a MSG provider, or the one endpoint of an RDM target or initiator.
#pragma once

#include "AddressVector.hpp"
#include "CompletionQueue.hpp"
#include "EventQueue.hpp"

#include <cstdint>
#include <vector>

namespace mxl::fabrics
{
    // A local range of a scatter-gather write, with the descriptor of its registration.
    struct LocalSegment
    {
        void const* base = nullptr;
        std::size_t length = 0;
        void* descriptor = nullptr;
    };

    // One RMA write: a local range (with its descriptor) into a remote range, optionally carrying remote CQ data.
    struct RmaWrite
    {
        void const* local = nullptr;
        std::size_t length = 0;
        void* descriptor = nullptr;
        std::uint64_t remoteAddress = 0;
        std::uint64_t remoteKey = 0;
        bool carriesImmediate = false;
        std::uint32_t immediate = 0;
        // The completion only says that the local bytes were read (FI_INJECT_COMPLETE), not that they arrived: for payload
        // writes on providers that order writes, whose commit is delivery-complete and lands after them.
        bool completesWhenRead = false;
        // Sample transfers: when not empty, these local ranges (at most the provider's iov_limit) replace `local` and
        // land back to back in the remote range; `length` is then their total.
        std::vector<LocalSegment> gather;
    };

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

        void connect(std::vector<std::uint8_t> const& address);
        // The reference target sends a one-byte zero as accept data; initiators of either implementation ignore it.
        void accept();
        void shutdown() noexcept;

        [[nodiscard]] std::vector<std::uint8_t> name() const;

        // Posts one write; false when the transmit queue is full (-FI_EAGAIN), throws on other errors.
        bool write(RmaWrite const& write, fi_addr_t destination, void* context);
        // Posts a zero-byte receive, needed by providers whose remote CQ data consumes one (FI_RX_CQ_DATA).
        bool postReceive(void* context);

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
