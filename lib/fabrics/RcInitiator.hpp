// The initiator of connection-oriented providers (tcp, verbs): one endpoint and connection per target, all bound to
// the initiator's completion and event queues.
#pragma once

#include "Initiator.hpp"

namespace mxl::fabrics
{
    class RcInitiator final : public Initiator
    {
    public:
        RcInitiator(std::unique_ptr<OfiDomain> opened, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps, std::size_t cqDepth);
        ~RcInitiator() override;

    private:
        EventQueue _events;

        void connect(TargetLink& link) override;
        void disconnect(TargetLink& link) noexcept override;
        void pollEvents() override;
        std::optional<WriteCompletion> wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline) override;
        Endpoint& endpointOf(TargetLink& link) override;

        // Hands a connection event of one of its endpoints to the initiator's decisions.
        void handle(Event const& event);
    };
}
