// A connection-oriented target (tcp, verbs): listens for as long as it lives, so that a new initiator can connect
// while or after another one is connected (the reference closes its listener on the first request and can wedge).
#pragma once

#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/backends/ofi/OfiTarget.hpp"
#include "fabrics/backends/ofi/PassiveEndpoint.hpp"
#include "fabrics/backends/ofi/ReceivePool.hpp"

#include "common/UniqueFd.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>

namespace mxl::fabrics
{
    class RcTarget final : public OfiTarget
    {
    public:
        RcTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth, std::uint64_t targetId);
        ~RcTarget() override;

        [[nodiscard]] std::vector<std::uint8_t> address() const override;
        std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) override;
        void screenConnections(Admission admission) override;
        // The completion queue's and the event queue's descriptors in one, where the provider gives both.
        [[nodiscard]] int waitDescriptor() const noexcept override;
        [[nodiscard]] bool arm() override;

    private:
        // Accepted, waiting for FI_CONNECTED. The pool (msg transport only) is declared first so that the endpoint,
        // closed first, no longer writes into its buffers.
        struct Accepting
        {
            std::unique_ptr<ReceivePool> pool;
            Endpoint endpoint;
            // The initiator's address and port, for the log.
            std::string peer;
        };

        struct Established
        {
            std::unique_ptr<ReceivePool> pool;
            Endpoint endpoint;
            std::string peer;
        };

        using Connection = std::variant<Accepting, Established>;

        std::uint64_t _id;
        EventQueue _events;
        PassiveEndpoint _listener;
        // msg: receive buffers per connection.
        std::size_t _messageBuffers;
        // Keyed by the id each endpoint carries as its context; events and receives are routed by it.
        std::map<std::uint64_t, Connection> _connections;
        std::uint64_t _nextConnectionId = 1;
        Admission _admission;
        // An epoll set of both queues' descriptors; -1 where a queue has none.
        UniqueFd _waitSet;
        // Each read of libfabric's tcp event queue runs its connection manager, an epoll_wait, and so does arming it: a
        // reader that arms (the application's dispatch) reads the event queue once a wake, not on every read, and arms it
        // only once it gave an event. Due after an arm, after a read that found nothing, and at least every few reads.
        bool _eventsDue = true;
        std::uint32_t _readsSinceEvents = 0;
        // An event was read since the event queue was last armed, so its wake-up signal may be set.
        bool _eventsToArm = true;

        // The epoll set of both queues' descriptors, or -1.
        [[nodiscard]] int openWaitSet() const;
        void readEvents();
        void handle(Event const& event);
        void accept(Info const& request, std::vector<std::uint8_t> const& privateData);
        // Connection `id` from `peer` came up: another one up beside it is a second initiator writing into this ring.
        void warnIfSecondWriter(std::uint64_t id, std::string const& peer) const;
        std::optional<std::uint32_t> handle(Completion const& completion);
    };
}
