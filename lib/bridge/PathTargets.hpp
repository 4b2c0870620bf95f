// A target's redundant paths: each path is a fabrics target on a private path flow of the flow's definition
// (lib/client/PrivateDomain), and what the paths deliver is merged into the real flow: RedundantMerge for grains (video,
// data), RedundantSampleMerge for audio (docs/fabrics-demo.md, "Redundant paths"). The owner reads the path targets with
// the non-blocking read calls, one after the other, from its own loop (receive), or hands over their events' arrivals.
#pragma once

#include "RedundantMerge.hpp"
#include "RedundantSampleMerge.hpp"
#include "TransferUnit.hpp"

#include <client/FabricsHandles.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/MxlHandles.hpp>
#include <client/PrivateDomain.hpp>

#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxl::bridge
{
    struct PathSettings
    {
        // The domain the path flows live in, privately.
        std::filesystem::path domain;
        // The flow's definition and writer options (JSON text), and how messages name the definition.
        std::string definition;
        std::string writerOptions;
        std::string definitionOrigin;
        // The fabrics backend, the setup options of every path target, and the node of each path.
        std::string backend;
        std::string setupOptions;
        std::vector<std::string> nodes;
    };

    class PathTargets
    {
    public:
        // What the real flow gained: a unit ending at index `last` of `bytes` (`samples` per channel, 0 for a grain).
        using Committed = std::function<void(std::uint64_t last, std::uint64_t bytes, std::uint64_t samples)>;
        // The interface a path sets up on, for its node; throws to refuse it.
        using ChooseInterface = std::function<client::FabricsInterface(mxlFabricsInstance fabrics, std::string const& node)>;

        // Creates each path's private domain, flow and fabrics instance.
        PathTargets(PathSettings const& settings, mxlFlowWriter realWriter, TransferUnit unit, Committed committed,
                    ChooseInterface const& choose);

        // (Re)builds each path's fabrics target; returns their tickets (the library's JSON, unsigned), in path order.
        // Throws ClientError naming the path.
        std::vector<std::string> listen();

        // Reads what each path has now and merges it. Returns whether anything arrived, or the status of a path read that
        // failed (the owner rebuilds the targets then).
        mxlStatus receive(bool& arrivedAny);

        // The paths' targets (after listen()), for an owner that waits on their events instead of calling receive(), and
        // what such an owner hands back: what path `path` delivered, merged into the flow. The merges throw
        // std::runtime_error when the flow cannot be written.
        [[nodiscard]] std::size_t size() const noexcept;
        [[nodiscard]] mxlFabricsTarget target(std::size_t path) const noexcept;
        void mergeGrain(std::size_t path, mxlFabricsGrainArrival const& arrival);
        void mergeSamples(std::size_t path, mxlFabricsSamplesArrival const& arrival);

        // Units no path delivered and none can deliver any more (RedundantMerge::lost), or audio gaps passed over. Never
        // falls.
        [[nodiscard]] std::uint64_t lost() const;

        // Counts the samples or grains a path never delivered up to the end; call once, when stopping.
        void finish();

        [[nodiscard]] std::vector<PathCounters> const& counters() const;
        // Connection requests the paths' targets refused (allowed initiators), over every setup.
        [[nodiscard]] std::uint64_t refusedInitiators() const;
        // Initiators that connected to a path's target while another was connected to it, over every setup.
        [[nodiscard]] std::uint64_t concurrentInitiators() const;

    private:
        // Released in reverse order: the target, the flow handles, the instances, then the private directory.
        struct Path
        {
            Path(PathSettings const& settings, std::string const& node, ChooseInterface const& choose);

            std::string node;
            client::PrivateDomain domain;
            client::Instance instance;
            client::FlowWriter writer;
            client::FlowReader reader;
            client::FabricsOnInstance fabrics;
            client::FabricsInterface interface;
            std::unique_ptr<client::FabricsTarget> target;
        };

        std::string _setupOptions;
        TransferUnit _unit;
        std::uint64_t _bytesPerSlice = 0;
        Committed _committed;
        std::vector<std::unique_ptr<Path>> _paths;
        std::optional<RedundantMerge> _grainMerge;
        std::optional<RedundantSampleMerge> _sampleMerge;
        std::uint64_t _gapsPassedOver = 0;
        std::uint64_t _refusedByEarlierTargets = 0;
        std::uint64_t _concurrentAtEarlierTargets = 0;
    };
}
