// An initiator's transport over libfabric: one completion queue for the writes of all its connections and, for
// connection-oriented providers (FI_EP_MSG), one event queue for their connection events.
#pragma once

#include "fabrics/backends/ofi/CompletionQueue.hpp"
#include "fabrics/backends/ofi/EventQueue.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/backends/ofi/SentHeaders.hpp"
#include "fabrics/core/InitiatorTransport.hpp"

#include <cstddef>
#include <memory>
#include <optional>

namespace mxl::fabrics
{
    class OfiInitiator final : public InitiatorTransport
    {
    public:
        OfiInitiator(OfiDomain const& opened, std::size_t cqDepth);

        [[nodiscard]] std::unique_ptr<TransportPeer> peer(TargetInfo const& ticket) override;
        std::optional<WriteCompletion> pollCompletion() override;
        std::optional<ConnectionEvent> pollEvent() override;
        bool wait(std::chrono::milliseconds timeout, bool connecting) override;

    private:
        OfiDomain const& _opened;
        CompletionQueue _completions;
        std::optional<EventQueue> _events;
        // msg transport: the headers of sends in flight, released by their completions.
        SentHeaders _sent;
        // What a blocking read took while waiting: handed out first by the next poll.
        std::optional<WriteCompletion> _wokenCompletion;
        std::optional<ConnectionEvent> _wokenEvent;

        std::optional<WriteCompletion> released(std::optional<WriteCompletion> completion) noexcept;
    };

    // Opens the queues of an initiator over `opened`, which must outlive it. `cqDepth` below room for four completions per
    // write the transmit queue can hold (at least 64) is raised to that.
    [[nodiscard]] std::unique_ptr<InitiatorTransport> openOfiInitiator(OfiDomain const& opened, std::size_t cqDepth);
}
