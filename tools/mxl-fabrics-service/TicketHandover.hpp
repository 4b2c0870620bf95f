// How a target service, as an IS-05 receiver, connects the sender it was activated with: MXL fabrics initiators need the
// target's ticket, so the receiver PATCHes the sender's staged parameters (ext_mxl_target_ticket, with
// activate_immediate) at the sender's Connection API resource, which the sender's own ext_mxl_sender_api names. It hands
// the ticket over again whenever it changes (a new epoch after a rebuild, a new signature), and retries a sender that
// cannot be reached.
#pragma once

#include <chrono>
#include <string>

namespace mxl::service
{
    class TicketHandover
    {
    public:
        using Clock = std::chrono::steady_clock;

        // `enable`: the first handover also sets the sender's master_enable true (the receiver's activation connects
        // the pair); later ones leave it as the sender's controller set it.
        TicketHandover(std::string senderUrl, std::string receiverId, bool enable);

        // Hands `ticketJson` over unless the sender has it already or a retry is not due yet.
        void maintain(std::string const& ticketJson, Clock::time_point now);

        // Takes the ticket back from the sender (ext_mxl_target_ticket null): it removes this target. Once, best effort.
        void release();

        [[nodiscard]] std::string const& senderUrl() const noexcept
        {
            return _senderUrl;
        }

    private:
        std::string _senderUrl;
        std::string _receiverId;
        bool _enable;
        std::string _handedOver;
        Clock::time_point _nextAttempt{};
        std::string _lastProblem;
    };
}
