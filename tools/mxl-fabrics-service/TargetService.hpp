// The target role: creates the flow from its definition, sets up a fabrics target on it, publishes the ticket (file,
// HTTP and/or etcd), announces READY=1, and then watches what arrives. The fabrics library commits each grain (video, data)
// or batch of samples (audio) itself; for audio its ticket also carries the bounce buffer initiators write batches
// into. The service judges health from the flow's head index and, when nothing arrives for stall_timeout_ms after
// units had been flowing, rebuilds the target under a new epoch so that initiators re-establish from scratch. As an
// IS-05 receiver it connects the sender it is activated with by handing its ticket over (TicketHandover). With redundant
// paths ('path' twice) the fabrics targets sit on private path flows and bridge::PathTargets merges them into the flow; the
// first path's ticket goes wherever a single target's would (file, HTTP, etcd, IS-05), the second path's to its file.
#pragma once

#include "Notifier.hpp"
#include "ServiceConfig.hpp"
#include "ServiceInterface.hpp"
#include "ServiceNode.hpp"
#include "StatusFile.hpp"
#include <bridge/Metrics.hpp>
#include <bridge/PathTargets.hpp>
#include <directory/BackgroundPublication.hpp>
#include <directory/Ticket.hpp>
#include <directory/TicketFile.hpp>

#include <TicketHandover.hpp>

#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace mxl::service
{
    using bridge::TransferUnit;
    using directory::Ticket;

    class TargetService
    {
    public:
        TargetService(ServiceConfig const& config, Notifier& notifier);
        ~TargetService();

        TargetService(TargetService const&) = delete;
        TargetService& operator=(TargetService const&) = delete;

        // Until SIGTERM/SIGINT.
        void run();

    private:
        using Clock = std::chrono::steady_clock;

        ServiceConfig const& _config;
        Notifier& _notifier;
        client::Instance _instance;
        client::FlowWriter _writer;
        std::string _flowId;
        TransferUnit _unit;
        client::FlowReader _reader;
        client::FabricsOnInstance _fabrics;
        client::FabricsInterface _interface;
        std::unique_ptr<client::FabricsTarget> _target;
        // Connection requests refused by the targets replaced since the start (the metric counts over all of them).
        std::uint64_t _refusedByEarlierTargets = 0;
        // With 'path': the path targets and the merge (and _target stays empty).
        std::unique_ptr<bridge::PathTargets> _paths;
        bridge::Metrics _metrics;
        StatusFile _statusFile;
        // The HTTP thread reads the ticket.
        mutable std::mutex _ticketMutex;
        std::optional<Ticket> _ticket;
        // The NMOS node on http_listen; its HTTP thread reads the members above, so it is destroyed before them.
        std::unique_ptr<nmos::Node> _nmos;
        // The sender an IS-05 activation connected this receiver to.
        std::unique_ptr<nmos::TicketHandover> _handover;
        std::vector<std::unique_ptr<nmos::TicketHandover>> _retiredHandovers;
        // The ticket in the facility's etcd, when configured.
        std::unique_ptr<directory::BackgroundPublication> _directory;

        std::uint64_t _bytesPerSlice = 0;
        // The first grain or sample index not arrived yet; a later arrival means units in between were lost.
        std::optional<std::uint64_t> _nextExpected;
        std::uint64_t _head = 0;
        Clock::time_point _headAdvancedAt{};
        // Grains arrived since the target was (re)built: only then can their absence be a stall.
        bool _flowing = false;
        Clock::time_point _nextStatus{};

        void buildTarget();
        void publish(Ticket ticket);
        // With ticket_key: the ticket as the library made it, signed again at half its lifetime.
        std::optional<Ticket> _unsignedTicket;
        // With 'path': the second path's ticket as the library made it.
        std::optional<Ticket> _secondUnsignedTicket;
        Clock::time_point _resignAt{};
        // Signs the ticket when a key is configured, and writes it to the file, HTTP and etcd.
        void distribute(Ticket ticket);
        void withdrawTicketFile() const;
        void receive();
        // One read from the fabrics target, accounted when something arrived; the status of the read.
        mxlStatus receiveGrain();
        mxlStatus receiveSamples();
        // Indices [first, last] arrived as one unit of `bytes` (`samples` per channel, 0 for a grain).
        void arrived(std::uint64_t first, std::uint64_t last, std::uint64_t bytes, std::uint64_t samples);
        // A unit ending at index `last` moved: its latency after its own timestamp, counted in the metrics.
        void account(std::uint64_t last, std::uint64_t bytes, std::uint64_t samples);
        // The second path's ticket, signed when a key is configured, into its file.
        void distributeSecondTicket();
        [[nodiscard]] std::string signedWhenKeyed(std::string json);
        void checkHealth(Clock::time_point now);
        // Takes what an IS-05 activation made active, and keeps the connected sender's ticket current.
        void applyActivation();
    };
}
