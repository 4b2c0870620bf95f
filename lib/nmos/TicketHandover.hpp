// How a target service, as an IS-05 receiver, connects the sender it was activated with: MXL fabrics initiators need the
// target's ticket, so the receiver PATCHes the sender's staged parameters (ext_mxl_target_ticket, with
// activate_immediate) at the sender's Connection API resource, which the sender's own ext_mxl_sender_api names, or which
// is looked up in the registry's Query API by the sender's id (SenderLookup.hpp). It hands the ticket over again
// whenever it changes (a new epoch after a rebuild, a new signature), and retries a sender that cannot be reached or
// found. A sender that restarted meanwhile (its active parameters made by no activation) is connected again as the
// activation connected it, master_enable true. A sender feeds one receiver: once another receiver was activated with
// it, this one hands it no more tickets and, when retired, takes nothing back from it.
//
// The requests run on the handover's own thread: a sender that accepts connections and never answers costs a log line
// and a retry, never a grain of the target's loop.
#pragma once

#include "SenderLookup.hpp"

#include <common/OutageLog.hpp>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace mxl::nmos
{
    // The sender to hand the ticket to: the URL of its Connection API resource, or its id and the Query API to find it in.
    struct SenderAddress
    {
        std::string url;
        std::string id;
        std::optional<QueryAddress> query;
    };

    class TicketHandover
    {
    public:
        using Clock = std::chrono::steady_clock;

        // `enable`: the first handover also sets the sender's master_enable true (the receiver's activation connects
        // the pair); later ones leave it as the sender's controller set it, unless the sender has started afresh since
        // (its active parameters made by no activation: a restart), which is enabled again.
        TicketHandover(SenderAddress sender, std::string receiverId, bool enable);
        // Retires the handover with one attempt to take the ticket back, and waits for it: at most about four request
        // timeouts (a hand-over under way and the take-back, each a GET and a PATCH).
        ~TicketHandover();

        TicketHandover(TicketHandover const&) = delete;
        TicketHandover& operator=(TicketHandover const&) = delete;

        // The ticket the sender should have; handed over unless it has it already, retried while it cannot be.
        void maintain(std::string const& ticketJson);

        // Takes the ticket back from the sender (ext_mxl_target_ticket null) in up to `attempts` tries a second apart,
        // and stops; done() turns true when that finished. A later call can only cut the attempts short.
        void retire(int attempts = 3);
        [[nodiscard]] bool done() const;
        // Once done(): false where the sender was not told to stop (it could not be reached, or refused), so it may still
        // write with the ticket until the target's next epoch.
        [[nodiscard]] bool released() const;

        // Asks the sender, on the handover's thread, whether it was disabled on purpose: its active master_enable false
        // while it feeds this receiver. senderDisabled() is true once it answered the latest probe so, until the next probe;
        // the answer to an earlier probe still under way is dropped.
        void probeSender();
        [[nodiscard]] bool senderDisabled() const;

    private:
        SenderAddress const _sender;
        std::string const _receiverId;

        mutable std::mutex _mutex;
        std::condition_variable _changed;
        std::string _wanted;
        bool _retiring = false;
        int _releaseAttempts = 0;
        bool _done = false;
        bool _released = false;
        bool _probeWanted = false;
        bool _senderDisabled = false;
        // Counts probeSender() calls: an answer is kept only for the latest.
        std::uint64_t _probeGeneration = 0;

        // The thread's own. The sender's resource URL: given, or once looked up; and how the sender is named in logs.
        std::string _senderUrl;
        std::string _senderName;
        // The receiver's activation connected the pair: a sender that restarted since is enabled again.
        bool const _connects;
        bool _enable;
        std::string _handedOver;
        // A hand-over was sent, answered or not.
        bool _attempted = false;
        // The steps retried while a peer fails, each logged as its own outage.
        enum Step : std::size_t
        {
            Find,
            HandOver,
            Ask,
            TakeBack,
            Steps
        };
        std::array<OutageLog, Steps> _problems;
        // Another receiver took the sender over.
        bool _displaced = false;

        std::thread _worker;

        void run();
        // True when the sender's resource URL is known, looking it up where it is not.
        bool located();
        // `request`'s answer, or false where it threw.
        bool attempt(std::function<bool()> const& request);
        // Logs `line` at warning unless the outage of the step failing for `reason` has been logged enough (OutageLog).
        void warnOnce(Step step, std::string const& reason, std::string const& line);
        // True when the sender's active parameters say master_enable false with this receiver's receiver_id.
        bool disabledForThisReceiver();
        // True when the sender took `ticketJson`, or when another receiver took the sender over.
        bool handOver(std::string const& ticketJson);
        // False where the sender could not be asked; sets _displaced where it feeds another receiver now.
        bool stillFeedsThisReceiver();
        // True when the sender no longer writes with this receiver's ticket, as far as it says.
        bool release();
    };
}
