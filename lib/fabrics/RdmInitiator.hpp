// The initiator of connectionless providers (shm, efa): one endpoint; each target is an address vector entry.
#pragma once

#include "Initiator.hpp"

namespace mxl::fabrics
{
    class RdmInitiator final : public Initiator
    {
    public:
        RdmInitiator(SelectedInterface selected, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps, std::size_t cqDepth);
        ~RdmInitiator() override;

    private:
        AddressVector _av;
        Endpoint _endpoint;

        void connect(TargetLink& link) override;
        void disconnect(TargetLink& link) noexcept override;

        // Posts the probe writes of connecting targets that the provider refused so far.
        void pollEvents() override;

        std::optional<Completion> wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline) override;

        Endpoint& endpointOf(TargetLink&) override
        {
            return _endpoint;
        }

        [[nodiscard]] bool reportsNoTargets() const noexcept override
        {
            return false;
        }
    };
}
