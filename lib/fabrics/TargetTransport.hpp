// How a target meets its initiators: connections over a listening endpoint (RcTarget, FI_EP_MSG) or one addressable
// endpoint (RdmTarget, FI_EP_RDM). Both hand the protocol the immediate data of each arrived transfer.
#pragma once

#include "CompletionQueue.hpp"
#include "TargetInfo.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

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

    class TargetTransport
    {
    public:
        using ConnectionObserver = std::function<void(ConnectionChange const&)>;

        virtual ~TargetTransport() = default;

        // Called from inside nextArrival, on its thread; an empty observer stops the reports.
        void observeConnections(ConnectionObserver observer)
        {
            _connectionObserver = std::move(observer);
        }

        [[nodiscard]] virtual TargetInfo const& ticket() const noexcept = 0;

        // Drives connections and returns the immediate data of the next arrived transfer, waiting up to `timeout`
        // (zero: one non-blocking pass).
        virtual std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) = 0;

    protected:
        void reportConnection(ConnectionChange const& change) const
        {
            if (_connectionObserver)
            {
                _connectionObserver(change);
            }
        }

    private:
        ConnectionObserver _connectionObserver;
    };

    // The remote CQ data of a completion, if it is one; failed completions are logged and skipped.
    [[nodiscard]] std::optional<std::uint32_t> immediateOf(Completion const& completion);

    // Providers with FI_RX_CQ_DATA consume one posted receive per remote CQ data; one per write that can be in flight.
    [[nodiscard]] std::size_t receivesToPost(fi_info const& info) noexcept;
}
