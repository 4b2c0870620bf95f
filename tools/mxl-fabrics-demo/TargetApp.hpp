// Target mode: creates the flow from its definition, exposes its memory to initiators and reports what arrives.
#pragma once

#include "DemoOptions.hpp"
#include "InterfaceChoice.hpp"
#include "TargetSetup.hpp"
#include "TransferStats.hpp"
#include <bridge/ArrivalTally.hpp>
#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <client/FabricsInstance.hpp>

#include <mxl/fabrics_events.h>
#include <mxl/flowinfo.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::demo
{
    class TargetApp
    {
    public:
        // Sets everything up and prints the ticket; throws ToolError.
        explicit TargetApp(DemoOptions const& options);

        // Receives until SIGINT/SIGTERM or --count grains, then prints the summary.
        void run();

        [[nodiscard]] std::string const& flowId() const noexcept
        {
            return _flow.flowId;
        }

    private:
        std::uint64_t _count;
        client::FabricsInstance _instance;
        CreatedFlow _flow;
        // A reader of our own flow, for the tally to measure the bytes of each sample batch without touching it.
        client::FlowReader _reader;
        std::optional<bridge::ArrivalTally> _tally;
        ChosenInterface _interface;
        client::FabricsTarget _target;
        client::OwnedTargetInfo _targetInfo;
        TransferStats _stats{TransferStats::Role::Target};
        // A failure a handler saw, thrown by the loop: a handler cannot throw through the C API.
        std::optional<mxlStatus> _readFailure;

        void createFlow(DemoOptions const& options);
        void setUpTarget(std::string const& ticketFile, DemoOptions const& options);
        // Starts the target's events and returns their descriptor.
        int startEvents();
        void receive(int eventFd);
        void account(bridge::ArrivalTally::Counted const& counted);
        [[nodiscard]] bool done() const;

        // Event handlers; `userData` is the app.
        static void onGrain(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
        static void onSamples(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
        static void onLost(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
        static void onFailure(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
    };
}
