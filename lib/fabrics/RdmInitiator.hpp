// The initiator of connectionless providers (shm, efa): an endpoint and address vector per target, all bound to the
// initiator's completion queue. shm (1.17) never reports a dead peer, and an endpoint consumes its peers' answers in
// one queue, strictly in order: a write to a dead peer never completes, and on a shared endpoint no later write to
// any peer would either. With one endpoint per target a dead one holds back only itself; it is closed when the target
// is dropped, and a reconnection starts on a fresh endpoint.
#pragma once

#include "Initiator.hpp"

namespace mxl::fabrics
{
    class RdmInitiator final : public Initiator
    {
    public:
        RdmInitiator(std::unique_ptr<OfiDomain> opened, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps, std::size_t cqDepth);
        ~RdmInitiator() override;

    private:
        void connect(TargetLink& link) override;
        void disconnect(TargetLink& link) noexcept override;

        // Posts the probe writes of connecting targets that the provider refused so far, and drops connected shm targets
        // that have ended.
        void pollEvents() override;
        // A connected shm target with writes waiting whose process has ended will never complete them, and waiting the
        // full completion patience for them would hold back the caller for the others.
        void dropEndedPeers();
        // Why an shm target has ended (its region file is gone, or no longer held: ShmRegion.hpp); nullopt while it may
        // live, and for other providers.
        [[nodiscard]] std::optional<std::string> endedTarget(TargetLink& link);

        std::optional<WriteCompletion> wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline) override;

        Endpoint& endpointOf(TargetLink& link) override;
    };
}
