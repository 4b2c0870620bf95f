// Target mode with two redundant paths (--path twice): bridge::PathTargets sets a fabrics target up on a private path
// flow of the flow's definition for each path, and merges what the paths deliver into the real flow (video and data from
// the path that delivered each grain first, audio from the path that holds the next samples); this app waits on the
// paths' events and hands their arrivals to it. The initiator side needs nothing new: given both tickets it sends every
// grain over both, skips a path whose link is cut (a lagging target, docs/fabrics.md) and reconnects it when it answers
// again.
#pragma once

#include "DemoOptions.hpp"
#include "TargetSetup.hpp"
#include "TransferStats.hpp"

#include <bridge/PathTargets.hpp>
#include <client/MxlHandles.hpp>

#include <mxl/fabrics_events.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxl::demo
{
    class RedundantTargetApp
    {
    public:
        // Creates the flow and both paths and prints their tickets; throws ToolError.
        explicit RedundantTargetApp(DemoOptions const& options);

        // Receives until SIGINT/SIGTERM or --count grains committed, then prints the summary and the path counters.
        void run();

    private:
        // What a path's event handlers get as their user data.
        struct PathEvents
        {
            RedundantTargetApp* app;
            // 0-based; messages and lines number paths from 1.
            std::size_t number;
        };

        std::uint64_t _count;
        client::Instance _instance;
        CreatedFlow _flow;
        TransferStats _stats{TransferStats::Role::Target};
        std::unique_ptr<bridge::PathTargets> _paths;
        std::vector<PathEvents> _pathEvents;
        // A failure a handler saw, thrown by the loop: a handler cannot throw through the C API.
        std::optional<std::string> _failure;

        void receive(std::vector<int> const& eventFds);
        // Hands one path's arrival to the merge; a failure is kept for the loop.
        template <typename Arrival>
        void merge(std::size_t path, Arrival const& arrival);
        void printPathCounters() const;
        [[nodiscard]] bool done() const;

        // Event handlers; `userData` is the path's PathEvents.
        static void onGrain(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
        static void onSamples(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
        static void onFailure(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
    };
}
