// Initiator mode: reads grains (or sample batches) of a local flow at its rate and writes them into every target (a
// bridge::FanOutSession), printing what it sees.
#pragma once

#include "DemoOptions.hpp"
#include "InterfaceChoice.hpp"
#include "Ticket.hpp"
#include "TransferStats.hpp"
#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <bridge/FanOutSession.hpp>
#include <client/FabricsInstance.hpp>

#include <mxl/flowinfo.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::demo
{
    class InitiatorApp
    {
    public:
        // Sets up the initiator and adds every target; throws ToolError.
        explicit InitiatorApp(DemoOptions const& options);

        // Connects, sends until SIGINT/SIGTERM or --count grains, disconnects and prints the summary.
        void run();

    private:
        struct Target
        {
            Ticket ticket;
            client::OwnedTargetInfo info;
        };

        // What the session tells: printed, and counted in the stats.
        class Report final : public bridge::FanOutSession::Observer
        {
        public:
            Report(std::uint64_t count, TransferStats& stats);

            bool stopRequested() override;
            void connected(std::size_t targets) override;
            void targetConnected(std::size_t index) override;
            void targetDisconnected(std::size_t index, std::string const& reason) override;
            void targetLagging(std::size_t index, bool lagging, std::uint64_t skipped) override;
            void targetCounts(std::vector<std::uint64_t> const& skipped, std::vector<std::uint64_t> const& invalidated) override;
            bool reportDue() override;
            void report() override;
            void delivered(bridge::SourceUnit const& unit, std::chrono::nanoseconds latency) override;
            void timedOut(std::string const& unit, std::chrono::seconds timeout) override;
            void lost(std::uint64_t units) override;
            void fellBehind() override;
            void disconnected(bool confirmed, std::chrono::seconds timeout) override;

        private:
            std::uint64_t _count;
            TransferStats& _stats;
        };

        std::uint64_t _count;
        std::chrono::duration<double> _connectTimeout;
        std::string _flowId;
        // InitiatorSetup's options: the ticket key to prove with --ticket-proof.
        std::string _setupOptions;
        client::FabricsInstance _instance;
        client::FlowReader _reader;
        mxlFlowConfigInfo _config{};
        ChosenInterface _interface;
        client::FabricsInitiator _initiator;
        std::vector<Target> _targets;
        // Adds the targets when the app is made, so that a ticket that does not fit fails before any flow connects.
        std::optional<bridge::FanOutSession> _session;
        TransferStats _stats{TransferStats::Role::Initiator};

        void loadTargets(std::vector<std::string> const& arguments, std::optional<signing::SigningKeys> const& keys);
        void openFlow(std::string const& domain);
        void setUpInitiator();
    };
}
