// How a target meets its initiators, whatever the transport: the address and regions its ticket publishes, and the
// immediate data of each transfer that arrived. What the immediate data means (slots, entries, read safety) is the
// caller's business.
#pragma once

#include "fabrics/ticket/TargetInfo.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    // An initiator's connection came up or went away (connection-oriented transports only).
    struct ConnectionChange
    {
        std::uint64_t connectionId = 0;
        bool connected = false;
        // Why it went away; empty when it came up.
        std::string reason;
    };

    // An initiator's request to connect, as the transport received it.
    struct ConnectionRequest
    {
        // A struct sockaddr; empty where the transport gives none.
        std::span<std::uint8_t const> peerAddress;
        std::span<std::uint8_t const> privateData;
    };

    class TargetTransport
    {
    public:
        using ConnectionObserver = std::function<void(ConnectionChange const&)>;
        // True admits the request.
        using Admission = std::function<bool(ConnectionRequest const&)>;

        virtual ~TargetTransport() = default;

        // Called from inside nextArrival, on its thread; an empty observer stops the reports.
        void observeConnections(ConnectionObserver observer)
        {
            _connectionObserver = std::move(observer);
        }

        // Told every change as well, whoever observes or not (the target's own tally); set once, before the first
        // nextArrival.
        void countConnections(ConnectionObserver counter)
        {
            _connectionCounter = std::move(counter);
        }

        // Where initiators reach this target, and the ticket's number for the format of that address.
        [[nodiscard]] virtual std::vector<std::uint8_t> address() const = 0;
        [[nodiscard]] virtual std::uint32_t addressFormat() const noexcept = 0;
        // The registered spans as a ticket publishes them, in the order they were given.
        [[nodiscard]] virtual std::vector<RemoteRegion> regions() const = 0;

        // Drives connections and returns the immediate data of the next arrived transfer, waiting up to `timeout`
        // (zero: one non-blocking pass).
        virtual std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) = 0;

        // From now on each connection request is put to `admission` (from inside nextArrival, on its thread); a refused
        // one is rejected before an endpoint is made for it, so no registered memory becomes reachable through it. An
        // empty admission admits every request. MXL_ERR_UNSUPPORTED_OPERATION where the transport receives no requests.
        virtual void screenConnections(Admission admission) = 0;

        // A descriptor that polls readable when nextArrival may have work, once arm() said it would; -1 where there is
        // none and the target must be polled.
        [[nodiscard]] virtual int waitDescriptor() const noexcept
        {
            return -1;
        }

        // Before waiting on the descriptor, after nextArrival found nothing or right after it gave an arrival: true when
        // it will wake for the next work, false when work may be waiting already (call nextArrival again), always false
        // while anything taken is not handed out.
        [[nodiscard]] virtual bool arm()
        {
            return true;
        }

    protected:
        void reportConnection(ConnectionChange const& change) const
        {
            if (_connectionCounter)
            {
                _connectionCounter(change);
            }
            if (_connectionObserver)
            {
                _connectionObserver(change);
            }
        }

    private:
        ConnectionObserver _connectionObserver;
        ConnectionObserver _connectionCounter;
    };
}
