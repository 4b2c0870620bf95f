// Target mode with two redundant paths (--path twice): each path is a fabrics target on a private path flow of the
// flow's definition, and a RedundantMerge commits each grain into the real flow from the path that delivered it first
// (video, data), or a RedundantSampleMerge extends the real flow from the path that holds the next samples (audio).
// The initiator side needs nothing new: given both tickets it sends every grain over both, skips a path whose link is
// cut (a lagging target, docs/fabrics.md) and reconnects it when it answers again.
#pragma once

#include "DemoOptions.hpp"
#include "InterfaceChoice.hpp"
#include "TargetSetup.hpp"
#include "TransferStats.hpp"

#include <bridge/RedundantMerge.hpp>
#include <bridge/RedundantSampleMerge.hpp>
#include <client/FabricsInstance.hpp>
#include <client/MxlHandles.hpp>
#include <client/PrivateDomain.hpp>

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
        // One path, released in reverse order: its target, its flow, its instance, then its private domain directory.
        struct Path
        {
            Path(RedundantTargetApp& owner, std::size_t position, DemoOptions const& options);

            RedundantTargetApp& app;
            // 0-based; messages and lines number paths from 1.
            std::size_t number;
            client::PrivateDomain domain;
            client::FabricsInstance instance;
            CreatedFlow flow;
            client::FlowReader reader;
            ListeningTarget listening;
        };

        std::uint64_t _count;
        client::Instance _instance;
        CreatedFlow _flow;
        std::vector<std::unique_ptr<Path>> _paths;
        // One of them, by the flow's kind.
        std::optional<bridge::RedundantMerge> _merge;
        std::optional<bridge::RedundantSampleMerge> _sampleMerge;
        TransferStats _stats{TransferStats::Role::Target};
        // A failure a handler saw, thrown by the loop: a handler cannot throw through the C API.
        std::optional<std::string> _failure;

        void receive(std::vector<int> const& eventFds);
        void merge(std::size_t path, mxlFabricsGrainArrival const& arrival);
        void mergeSamples(std::size_t path, mxlFabricsSamplesArrival const& batch);
        [[nodiscard]] std::vector<bridge::PathCounters> const& pathCounters() const;
        void printPathCounters() const;
        [[nodiscard]] bool done() const;

        // Event handlers; `userData` is the Path.
        static void onGrain(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
        static void onSamples(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
        static void onFailure(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
    };
}
