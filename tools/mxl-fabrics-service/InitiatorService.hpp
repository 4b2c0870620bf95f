// The initiator role: reads a local flow at its rate, grain by grain (video, data) or batch by batch (audio, see
// SourceCursor), and writes each unit into the target named by the current ticket (bridge::SenderSession: connecting,
// healing, stall and stale detection). It fetches the ticket every ticket_poll_ms, and at once when the session asks;
// a new epoch means the target restarted (or another took its place), and the session replaces the old target with the
// new one. Over the IS-05 Connection API a receiver hands over its ticket, which replaces the configured sources, and
// master_enable=false stops sending (the target is removed) until it is true again; an initiator without configured
// tickets waits for that.
#pragma once

#include "Notifier.hpp"
#include "ServiceConfig.hpp"
#include "ServiceInterface.hpp"
#include "ServiceNode.hpp"
#include "StatusFile.hpp"
#include <bridge/Metrics.hpp>
#include <bridge/SenderSession.hpp>
#include <bridge/SourceCursor.hpp>
#include <directory/BackgroundTicketFetch.hpp>
#include <directory/Ticket.hpp>
#include <directory/TicketSourceOutages.hpp>

#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <chrono>
#include <memory>
#include <optional>

namespace mxl::service
{
    using directory::Ticket;

    class InitiatorService : private bridge::SenderSession::Observer
    {
    public:
        InitiatorService(ServiceConfig const& config, Notifier& notifier);

        // Until SIGTERM/SIGINT; removes the target (a graceful disconnect) before returning.
        void run();

    private:
        using Clock = std::chrono::steady_clock;

        ServiceConfig const& _config;
        Notifier& _notifier;
        client::Instance _instance;
        client::FlowReader _reader;
        mxlFlowConfigInfo _flow;
        std::unique_ptr<bridge::SourceCursor> _source;
        client::FabricsOnInstance _fabrics;
        client::FabricsInterface _interface;
        client::FabricsInitiator _initiator;
        // Fetched off the grain loop: a slow or silent source costs its own thread, not grains. Each source is given
        // ticket_poll_ms, at most 0.5 s, so that a stop does not wait long on a fetch under way.
        directory::BackgroundTicketFetch _tickets;
        directory::TicketSourceOutages _sourceOutages;
        bridge::Metrics _metrics;
        bridge::SenderSession _session;
        StatusFile _statusFile;
        // The NMOS node on http_listen; its HTTP thread reads the members above, so it is destroyed before them.
        std::unique_ptr<nmos::Node> _nmos;

        // The source's flow was deleted or re-created: nothing is read, sent or offered to the session (whose initiator
        // is gone) until the flow is there again.
        bool _sourceLost = false;
        Clock::time_point _nextTicketPoll{};
        Clock::time_point _nextStatus{};
        std::string _lastTicketProblem;
        // What the IS-05 Connection API made active: whether to send at all (master_enable), and the ticket a receiver
        // handed over (ext_mxl_target_ticket), which takes the place of the configured sources.
        bool _enabled = true;
        std::optional<std::string> _activatedTicket;

        // Takes what an IS-05 activation made active.
        void applyActivation(Clock::time_point now);
        // The source's flow was deleted or re-created: leaves the target, and waits for the flow.
        void loseSource(std::string const& why);
        // Once the flow is there again, the same as before: a new reader, the initiator set up on it, the target added
        // again. Throws when it came back with another configuration (the service restarts and reads it afresh).
        void reattachSource(Clock::time_point now);
        // The ticket of the IS-05 activation, offered at once, or else a fetch from the configured sources asked for.
        void pollTicket(Clock::time_point now);
        // What a fetch from the configured sources found, unless an activation, master_enable false or the loss of the
        // source came meanwhile.
        void takeFetchedTicket();
        // Offers `ticket` to the session, or says once per problem why there is none.
        void offerTicket(std::optional<Ticket> ticket, std::string const& origin, std::string const& problem,
                         bridge::Handover handover = bridge::Handover::OnceConnected);
        // ext_mxl_sender_api (this sender's own Connection API resource, read only) and ext_mxl_target_ticket.
        [[nodiscard]] std::vector<nmos::TransportParam> transportParams(std::optional<std::string> const& domainId,
                                                                        std::string const& resourceUrl) const;

        void statusTick(Clock::time_point now);

        void connected() override;
        void establishing(std::string const& activity) override;
    };
}
