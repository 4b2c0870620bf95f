#include "PathTargets.hpp"

#include "TargetRead.hpp"

#include <client/ClientError.hpp>
#include <client/FlowId.hpp>
#include <client/TargetTicket.hpp>
#include <common/Log.hpp>

#include <fmt/format.h>

namespace mxl::bridge
{
    PathTargets::Path::Path(PathSettings const& settings, std::string const& pathNode, ChooseInterface const& choose)
        : node{pathNode}
        , domain{settings.domain}
        , instance{domain.str()}
        , writer{instance, settings.definition, settings.writerOptions, settings.definitionOrigin}
        , reader{instance, client::flowIdOf(writer.config())}
        , fabrics{instance.get(), settings.backend}
        , interface {
        choose(fabrics.get(), pathNode)
    } {}

    PathTargets::PathTargets(PathSettings const& settings, mxlFlowWriter realWriter, TransferUnit unit, Committed committed,
                             ChooseInterface const& choose)
        : _setupOptions{settings.setupOptions}
        , _unit{unit}
        , _committed{std::move(committed)}
    {
        std::vector<mxlFlowReader> readers;
        for (auto const& node : settings.nodes)
        {
            auto const& path = _paths.emplace_back(std::make_unique<Path>(settings, node, choose));
            readers.push_back(path->reader.get());
        }
        if (unit == TransferUnit::Grain)
        {
            _bytesPerSlice = bytesPerSlice(_paths.front()->writer.config());
            _grainMerge.emplace(realWriter, std::move(readers));
        }
        else
        {
            _sampleMerge.emplace(realWriter, std::move(readers));
        }
    }

    std::vector<std::string> PathTargets::listen()
    {
        std::vector<std::string> tickets;
        for (std::size_t number = 0; number < _paths.size(); ++number)
        {
            auto& path = *_paths[number];
            // The old target goes first: it holds the listening port the new one may need.
            _refusedByEarlierTargets += client::refusedInitiators(path.target.get());
            _concurrentAtEarlierTargets += client::concurrentInitiators(path.target.get());
            path.target.reset();
            path.target = std::make_unique<client::FabricsTarget>(path.fabrics.get());
            try
            {
                auto const info = client::setUpTarget(path.target->get(), path.interface, path.writer.get(), _setupOptions);
                tickets.push_back(client::ticketText(info.get()));
            }
            catch (client::ClientError const& error)
            {
                throw client::ClientError{error.kind(), fmt::format("path {} '{}': {}", number + 1, path.node, error.what())};
            }
        }
        return tickets;
    }

    mxlStatus PathTargets::receive(bool& arrivedAny)
    {
        arrivedAny = false;
        for (std::size_t path = 0; path < _paths.size(); ++path)
        {
            auto const& state = *_paths[path];
            auto const read = readTarget(state.target->get(), state.reader.get(), _unit, false, 0);
            switch (read.outcome)
            {
            case TargetRead::Outcome::Nothing:
                break;
            case TargetRead::Outcome::Failed:
                log::warn("reading path {} ('{}') failed", path + 1, state.node);
                return read.status;
            case TargetRead::Outcome::Lost:
                // Rewritten before this loop read it: that path lost the unit, the other may have it.
                arrivedAny = true;
                break;
            case TargetRead::Outcome::Arrived:
                arrivedAny = true;
                if (_unit == TransferUnit::Batch)
                {
                    mergeSamples(path, read.samples);
                }
                else if (read.grain.totalSlices != 0)
                {
                    mergeGrain(path, read.grain);
                }
                break;
            }
        }
        return MXL_STATUS_OK;
    }

    void PathTargets::mergeGrain(std::size_t path, mxlFabricsGrainArrival const& arrival)
    {
        auto const outcome = _grainMerge->arrived(path, arrival);
        log::debug("path {} grain {} slices {}/{} flags {}: {}", path + 1, arrival.index, arrival.validSlices, arrival.totalSlices,
                   arrival.flags, outcome == RedundantMerge::Outcome::Committed ? "committed" : "not committed");
        if (outcome == RedundantMerge::Outcome::Committed)
        {
            _committed(arrival.index, arrival.totalSlices * _bytesPerSlice, 0);
        }
    }

    void PathTargets::mergeSamples(std::size_t path, mxlFabricsSamplesArrival const& arrival)
    {
        auto const skippedBefore = _sampleMerge->skipped();
        auto const bytesBefore = _sampleMerge->copiedBytes();
        auto const moved = _sampleMerge->arrived(path, arrival);
        log::debug("path {} samples up to {} count {}: the flow's head moved by {}", path + 1, arrival.headIndex, arrival.count, moved);
        if (_sampleMerge->skipped() != skippedBefore)
        {
            ++_gapsPassedOver;
        }
        if (auto const copied = moved - (_sampleMerge->skipped() - skippedBefore); copied != 0)
        {
            _committed(*_sampleMerge->head(), _sampleMerge->copiedBytes() - bytesBefore, copied);
        }
    }

    std::size_t PathTargets::size() const noexcept
    {
        return _paths.size();
    }

    mxlFabricsTarget PathTargets::target(std::size_t path) const noexcept
    {
        return _paths[path]->target ? _paths[path]->target->get() : nullptr;
    }

    std::uint64_t PathTargets::lost() const
    {
        return _grainMerge ? _grainMerge->lost() : _gapsPassedOver;
    }

    void PathTargets::finish()
    {
        if (_grainMerge)
        {
            _grainMerge->finish();
        }
        else
        {
            _sampleMerge->finish();
        }
    }

    std::uint64_t PathTargets::refusedInitiators() const
    {
        auto refused = _refusedByEarlierTargets;
        for (auto const& path : _paths)
        {
            refused += client::refusedInitiators(path->target.get());
        }
        return refused;
    }

    std::uint64_t PathTargets::concurrentInitiators() const
    {
        auto concurrent = _concurrentAtEarlierTargets;
        for (auto const& path : _paths)
        {
            concurrent += client::concurrentInitiators(path->target.get());
        }
        return concurrent;
    }

    std::vector<PathCounters> const& PathTargets::counters() const
    {
        return _grainMerge ? _grainMerge->counters() : _sampleMerge->counters();
    }
}
