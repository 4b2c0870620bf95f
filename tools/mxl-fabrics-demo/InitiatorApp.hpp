// Initiator mode: reads grains (or sample batches) of a local flow at its rate and writes them into every target.
#pragma once

#include "DemoOptions.hpp"
#include "Handles.hpp"
#include "InterfaceChoice.hpp"
#include "Ticket.hpp"
#include "TransferStats.hpp"

#include <FabricsInstance.hpp>

#include <mxl/flowinfo.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mxl::demo
{
    class InitiatorApp
    {
    public:
        // Sets up and connects to every target; throws DemoError.
        explicit InitiatorApp(DemoOptions const& options);

        // Sends until SIGINT/SIGTERM or --count grains, disconnects and prints the summary.
        void run();

    private:
        struct Target
        {
            Ticket ticket;
            TargetInfo info;
        };

        std::uint64_t _count;
        std::chrono::duration<double> _connectTimeout;
        std::string _flowId;
        tools::FabricsInstance _instance;
        FlowReader _reader;
        mxlFlowConfigInfo _config{};
        ChosenInterface _interface;
        FabricsInitiator _initiator;
        std::vector<Target> _targets;
        TransferStats _stats{TransferStats::Role::Initiator};
        bool _grainSizeChecked = false;

        void openFlow(std::string const& domain);
        void loadTargets(std::vector<std::string> const& arguments);
        void setUpInitiator();
        // Returns false when a signal arrived before every target accepted.
        bool connect();
        void sendGrains();
        void sendSamples();
        void checkGrainSize(mxlGrainInfo const& grain);
        // Posts with `post` (retrying while the provider's queue is full) and waits for completion at every target.
        // False when it did not complete in time; throws when no target is left.
        bool transfer(std::function<mxlStatus()> const& post, std::string const& what);
        void disconnect();
        [[nodiscard]] bool done() const;
    };
}
