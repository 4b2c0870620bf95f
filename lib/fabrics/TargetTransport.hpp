// How a target meets its initiators: connections over a listening endpoint (RcTarget, FI_EP_MSG) or one addressable
// endpoint (RdmTarget, FI_EP_RDM). Both hand the protocol the immediate data of each arrived transfer.
#pragma once

#include "CompletionQueue.hpp"
#include "TargetInfo.hpp"

#include <chrono>
#include <cstdint>
#include <optional>

namespace mxl::fabrics
{
    class TargetTransport
    {
    public:
        virtual ~TargetTransport() = default;

        [[nodiscard]] virtual TargetInfo const& ticket() const noexcept = 0;

        // Drives connections and returns the immediate data of the next arrived transfer, waiting up to `timeout`
        // (zero: one non-blocking pass).
        virtual std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) = 0;
    };

    // The remote CQ data of a completion, if it is one; failed completions are logged and skipped.
    [[nodiscard]] std::optional<std::uint32_t> immediateOf(Completion const& completion);

    // Providers with FI_RX_CQ_DATA consume one posted receive per remote CQ data; one per write that can be in flight.
    [[nodiscard]] std::size_t receivesToPost(fi_info const& info) noexcept;
}
