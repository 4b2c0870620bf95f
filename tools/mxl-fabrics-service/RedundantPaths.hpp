// A target service's redundant paths ('path' twice): each path is a fabrics target on a private path flow of the flow's
// definition (lib/client/PrivateDomain), and what the paths deliver is merged into the real flow by the demo's rules:
// RedundantMerge for grains (video, data), RedundantSampleMerge for audio (docs/fabrics-demo.md, "Redundant paths").
// The service reads the path targets with the non-blocking read calls, one after the other, from its own loop.
#pragma once

#include "ServiceConfig.hpp"
#include <bridge/Metrics.hpp>
#include <directory/Ticket.hpp>

#include <bridge/RedundantMerge.hpp>
#include <bridge/RedundantSampleMerge.hpp>
#include <client/FabricsHandles.hpp>
#include <client/FabricsInterfaceChoice.hpp>
#include <client/MxlHandles.hpp>
#include <client/PrivateDomain.hpp>

#include <mxl/flow.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxl::service
{
    using bridge::TransferUnit;
    using directory::Ticket;

    class RedundantPaths
    {
    public:
        // What the real flow gained: a unit ending at index `last` of `bytes` (`samples` per channel, 0 for a grain).
        using Committed = std::function<void(std::uint64_t last, std::uint64_t bytes, std::uint64_t samples)>;

        // Creates each path's private domain, flow and fabrics instance; throws ConfigError naming a path this host has no
        // interface for. `definition` and `options` are the flow's definition and writer options (JSON text).
        RedundantPaths(ServiceConfig const& config, std::string const& definition, std::string const& options, mxlFlowWriter realWriter,
                       TransferUnit unit, Committed committed);

        // (Re)builds each path's fabrics target; returns their tickets (unsigned), in path order.
        std::vector<Ticket> listen();

        // Reads what each path has now and merges it. Returns whether anything arrived, or the status of a path read that
        // failed (the service rebuilds the targets then).
        mxlStatus receive(bool& arrivedAny);

        // Units no path delivered, as they stand: grains between the first and the newest commit no path has delivered
        // (yet), or audio gaps passed over.
        [[nodiscard]] std::uint64_t lost() const;

        // Counts the samples or grains a path never delivered up to the end; call once, when stopping.
        void finish();

        [[nodiscard]] std::vector<bridge::PathCounters> const& counters() const;
        // Connection requests the paths' targets refused (allow_initiators), over every setup.
        [[nodiscard]] std::uint64_t refusedInitiators() const;

    private:
        // Released in reverse order: the target, the flow handles, the instances, then the private directory.
        struct Path
        {
            Path(ServiceConfig const& config, std::string const& node, std::string const& definition, std::string const& options);

            std::string node;
            client::PrivateDomain domain;
            client::Instance instance;
            client::FlowWriter writer;
            client::FlowReader reader;
            client::FabricsOnInstance fabrics;
            client::FabricsInterface interface;
            std::unique_ptr<client::FabricsTarget> target;
        };

        ServiceConfig const& _config;
        TransferUnit _unit;
        std::uint64_t _bytesPerSlice = 0;
        Committed _committed;
        std::vector<std::unique_ptr<Path>> _paths;
        std::optional<bridge::RedundantMerge> _grainMerge;
        std::optional<bridge::RedundantSampleMerge> _sampleMerge;
        std::uint64_t _gapsPassedOver = 0;
        std::uint64_t _refusedByEarlierTargets = 0;

        mxlStatus receiveGrain(std::size_t path, bool& arrivedAny);
        mxlStatus receiveSamples(std::size_t path, bool& arrivedAny);
    };
}
