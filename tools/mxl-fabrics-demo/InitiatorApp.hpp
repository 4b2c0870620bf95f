// Initiator mode: reads grains (or sample batches) of a local flow at its rate and writes them into every target.
#pragma once

#include "DemoOptions.hpp"
#include "InterfaceChoice.hpp"
#include "Ticket.hpp"
#include "TransferStats.hpp"
#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <bridge/SourceCursor.hpp>
#include <client/FabricsInstance.hpp>

#include <mxl/fabrics_state.h>
#include <mxl/flowinfo.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace mxl::demo
{
    class InitiatorApp
    {
    public:
        // Sets up and adds every target; throws ToolError.
        explicit InitiatorApp(DemoOptions const& options);

        // Connects, sends until SIGINT/SIGTERM or --count grains, disconnects and prints the summary.
        void run();

    private:
        struct Target
        {
            Ticket ticket;
            client::OwnedTargetInfo info;
            // As last reported, so that only changes are printed.
            mxlFabricsTargetState state = MXL_FABRICS_TARGET_NOT_CONNECTED;
            // Why it was last disconnected.
            std::string reason;
            // As last reported: whether the library skips it because its writes stopped completing, and the transfers
            // it skipped.
            bool lagging = false;
            std::uint64_t skipped = 0;
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
        std::size_t _connectedTargets = 0;
        std::chrono::steady_clock::time_point _nextStateCheck;
        // When a grain last reached a target (or the connection was made), and whether one ever did.
        std::chrono::steady_clock::time_point _lastDelivery;
        bool _everDelivered = false;
        TransferStats _stats{TransferStats::Role::Initiator};

        void loadTargets(std::vector<std::string> const& arguments, std::optional<signing::SigningKeys> const& keys);
        void openFlow(std::string const& domain);
        void setUpInitiator();
        // False when a signal arrived before every target accepted.
        bool connect();
        // Asks the library for each target's state and counters, prints what changed, and hands the per-target skips to
        // the stats; returns how many are connected.
        std::size_t refreshTargetStates();
        // Refreshes the states a few times a second at most.
        void watchTargets();
        // With no target connected: waits for the library to reconnect one, at most the connect timeout. False on a
        // signal; throws when none came back.
        bool awaitReconnection();
        // Sends until done, a signal or a failure.
        void send();
        // Reads each target's skipped transfers into `Target::skipped`; true when every count grew since the last look.
        bool updateSkips();
        // Posts `unit` through `cursor` and waits until every connected target that keeps up has it. False when it reached
        // no target in time.
        bool transfer(bridge::SourceCursor const& cursor, bridge::SourceUnit const& unit);
        // After an undelivered grain: gives up when nothing was delivered for the connect timeout (exit 2 if nothing
        // ever was: the ticket is stale).
        void checkDeliveries() const;
        void disconnect();
        [[nodiscard]] bool done() const;
    };
}
