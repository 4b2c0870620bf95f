// The initiator role: reads a local flow at its rate, grain by grain (video, data) or batch by batch (audio, see
// SourceCursor), and writes each unit into the target named by the current ticket. It fetches the ticket again every ticket_poll_ms; a new
// epoch means the target restarted, and the old target is removed and the new one added. It re-establishes with back-off when writes fail,
// when the connection is lost for longer than stall_timeout_ms, or when the source produces while nothing is delivered (a stall). A ticket
// that gives no connection (or no delivery) for connect_timeout_ms is reported as stale, and fetching goes on. Over the IS-05
// Connection API a receiver hands over its ticket, which replaces the configured sources, and master_enable=false stops
// sending (the target is removed) until it is true again; an initiator without configured tickets waits for that.
#pragma once

#include "Notifier.hpp"
#include "ServiceConfig.hpp"
#include "ServiceInterface.hpp"
#include "ServiceNode.hpp"
#include "StatusFile.hpp"
#include "bridge/SourceCursor.hpp"
#include <bridge/Metrics.hpp>
#include <common/Backoff.hpp>
#include <directory/Ticket.hpp>
#include <directory/TicketSource.hpp>

#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <mxl/fabrics_state.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>

namespace mxl::service
{
    using bridge::TransferUnit;
    using directory::Ticket;

    class InitiatorService
    {
    public:
        InitiatorService(ServiceConfig const& config, Notifier& notifier);

        // Until SIGTERM/SIGINT; removes the target (a graceful disconnect) before returning.
        void run();

    private:
        using Clock = std::chrono::steady_clock;

        // The target of one ticket, as added to the initiator.
        struct Established
        {
            Ticket ticket;
            client::OwnedTargetInfo info;
            Clock::time_point since;
            mxlFabricsTargetState state = MXL_FABRICS_TARGET_NOT_CONNECTED;
            Clock::time_point stateSince;
            // The connection was up at least once on this ticket.
            bool connected = false;
            // A grain or batch got through on this ticket.
            bool delivered = false;
            bool reportedStale = false;
            // What the library said with the latest state change.
            std::string reason;
            // A write was refused on this ticket and that was logged: it would be refused again for every unit (e.g. a
            // batch longer than the target's bounce-buffer entries), and the journal needs it once.
            bool reportedWriteFailure = false;
        };

        ServiceConfig const& _config;
        Notifier& _notifier;
        client::Instance _instance;
        client::FlowReader _reader;
        mxlFlowConfigInfo _flow;
        std::unique_ptr<bridge::SourceCursor> _source;
        client::FabricsOnInstance _fabrics;
        client::FabricsInterface _interface;
        client::FabricsInitiator _initiator;
        directory::TicketSource _tickets;
        bridge::Metrics _metrics;
        StatusFile _statusFile;
        // The NMOS node on http_listen; its HTTP thread reads the members above, so it is destroyed before them.
        std::unique_ptr<nmos::Node> _nmos;
        Backoff _backoff;

        std::optional<Established> _target;
        Clock::time_point _lastDelivery{};
        Clock::time_point _nextTicketPoll{};
        Clock::time_point _nextStatus{};
        std::string _lastTicketProblem;
        std::set<std::string> _reportedTicketProblems;
        // A ticket whose target refused every batch (its bounce-buffer entries are too small for them): not added again.
        std::optional<Ticket> _misfit;
        // What the IS-05 Connection API made active: whether to send at all (master_enable), and the ticket a receiver
        // handed over (ext_mxl_target_ticket), which takes the place of the configured sources.
        bool _enabled = true;
        std::optional<std::string> _activatedTicket;
        // Where the current ticket came from, for messages.
        std::string _ticketOrigin;

        // Takes what an IS-05 activation made active.
        void applyActivation(Clock::time_point now);
        // The ticket of the IS-05 activation, or else the first the configured sources give; nullopt with `problem`.
        std::optional<Ticket> fetchTicket(std::string& problem);
        // ext_mxl_sender_api (this sender's own Connection API resource, read only) and ext_mxl_target_ticket.
        [[nodiscard]] std::vector<nmos::TransportParam> transportParams(std::optional<std::string> const& domainId,
                                                                        std::string const& resourceUrl) const;

        void pollTicket(Clock::time_point now);
        // Why this initiator cannot use `ticket` (provider, grains or samples, unreadable by the library), or "".
        [[nodiscard]] std::string unusable(Ticket const& ticket) const;
        // Logs `problem` unless it was logged already since the last target was established.
        void reportTicketProblem(std::string const& problem);
        // Removes the current target (if any) and adds the one of `ticket`; false when the library refused it.
        bool establish(Ticket ticket, std::string const& why);
        void dropTarget();
        void refreshState(Clock::time_point now);
        void awaitConnection(Clock::time_point now);
        void sendNext();
        // Posts `unit` and drives progress until it completed; false when it did not within the transfer timeout.
        bool transfer(bridge::SourceUnit const& unit);
        // What the library counted for the target as never committed valid (docs/fabrics.md, "Read safety").
        [[nodiscard]] std::uint64_t invalidatedTransfers() const;
        void onUndelivered(Clock::time_point now);
        // Drops the current target for good: its ticket is not added again, a new epoch is waited for.
        void refuseTicket(std::string const& why);
        void reportStale(Clock::time_point now, std::string const& why);
        void statusTick(Clock::time_point now);
        void disconnect();
    };
}
