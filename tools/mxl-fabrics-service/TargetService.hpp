// The target role: creates the flow from its definition, sets up a fabrics target on it (bridge::ReceiverSession, which
// reads and accounts what arrives and says when a failed read or a stall needs the target rebuilt under a new epoch),
// publishes the ticket (file, HTTP and/or etcd), signed when a key is configured, and announces READY=1. The fabrics
// library commits each grain (video, data) or batch of samples (audio) itself. As an IS-05 receiver it connects the
// sender it is activated with by handing its ticket over (TicketHandover). With redundant paths ('path' twice) the
// first path's ticket goes wherever a single target's would (file, HTTP, etcd, IS-05), the second path's to its file.
#pragma once

#include "Notifier.hpp"
#include "ServiceConfig.hpp"
#include "ServiceInterface.hpp"
#include "ServiceNode.hpp"
#include "StatusFile.hpp"
#include <bridge/Metrics.hpp>
#include <bridge/ReceiverSession.hpp>
#include <directory/BackgroundPublication.hpp>
#include <directory/Ticket.hpp>
#include <directory/TicketFile.hpp>

#include <TicketHandover.hpp>

#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace mxl::service
{
    using directory::Ticket;

    class TargetService
    {
    public:
        // `earlier`: the totals of the service this one starts afresh from, in the same process.
        TargetService(ServiceConfig const& config, Notifier& notifier, bridge::MetricsTotals const& earlier = {});
        ~TargetService();

        TargetService(TargetService const&) = delete;
        TargetService& operator=(TargetService const&) = delete;

        // Until SIGTERM/SIGINT: false. True once its flow was deleted or re-created under it (readers could no longer
        // see what it receives): the caller starts the service afresh, which creates the flow again under a new epoch.
        [[nodiscard]] bool run();

        [[nodiscard]] bridge::MetricsTotals totals() const
        {
            return _metrics.totals();
        }

    private:
        using Clock = std::chrono::steady_clock;

        ServiceConfig const& _config;
        Notifier& _notifier;
        client::Instance _instance;
        client::FlowWriter _writer;
        std::string _flowId;
        client::FlowReader _reader;
        client::FabricsOnInstance _fabrics;
        bridge::Metrics _metrics;
        std::unique_ptr<bridge::ReceiverSession> _session;
        StatusFile _statusFile;
        // The HTTP thread reads the ticket.
        mutable std::mutex _ticketMutex;
        std::optional<Ticket> _ticket;
        // The NMOS node on http_listen; its HTTP thread reads the members above, so it is destroyed before them.
        std::unique_ptr<nmos::Node> _nmos;
        // The sender an IS-05 activation connected this receiver to.
        std::unique_ptr<nmos::TicketHandover> _handover;
        std::vector<std::unique_ptr<nmos::TicketHandover>> _retiredHandovers;
        // The connected sender was asked, in this quiet spell of the flow, whether it was disabled on purpose.
        bool _senderProbed = false;
        // The ticket in the facility's etcd, when configured.
        std::unique_ptr<directory::BackgroundPublication> _directory;

        // With ticket_key: the ticket as the library made it, signed again at half its lifetime.
        std::optional<Ticket> _unsignedTicket;
        // With 'path': the second path's ticket as the library made it.
        std::optional<Ticket> _secondUnsignedTicket;
        Clock::time_point _resignAt{};
        Clock::time_point _nextStatus{};
        // The inode of the flow's data file as this service opened it, looked at every status interval.
        std::uint64_t _flowInode = 0;
        bool _flowLost = false;
        // Ticket files that could not be written, with the text each owes: written again at every status tick. A file
        // that cannot be written is reported, never the end of the service (HTTP and etcd serve the ticket meanwhile).
        std::map<std::filesystem::path, std::string> _owedTicketFiles;
        std::string _lastTicketFileProblem;

        // Builds the target (or the paths' targets) anew and publishes its ticket.
        void buildTarget();
        void publish(Ticket ticket);
        // Signs the ticket when a key is configured, and writes it to the file, HTTP and etcd.
        void distribute(Ticket ticket);
        void withdrawTicketFile() const;
        void writeTicketFile(std::filesystem::path const& path, std::string text);
        void writeOwedTicketFiles();
        // The second path's ticket, signed when a key is configured, into its file.
        void distributeSecondTicket();
        [[nodiscard]] std::string signedWhenKeyed(std::string json);
        void statusTick(Clock::time_point now);
        // The inode of the flow's data file now; 0 when it is gone.
        [[nodiscard]] std::uint64_t flowInode() const;
        // Takes what an IS-05 activation made active, and keeps the connected sender's ticket current.
        void applyActivation();
        // A connected sender that answered that it was disabled (master_enable false) stopped on purpose: no stall.
        void excuseDisabledSender(Clock::time_point now);
    };
}
