#include "RedundantTargetApp.hpp"

#include "TargetSetup.hpp"
#include "ToolError.hpp"

#include <ExitRequest.hpp>
#include <common/Log.hpp>

#include <mxl/dataformat.h>
#include <mxl/fabrics.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <exception>

namespace mxl::demo
{
    namespace
    {
        char const* outcomeName(bridge::RedundantMerge::Outcome outcome)
        {
            switch (outcome)
            {
            case bridge::RedundantMerge::Outcome::Committed:
                return "committed";
            case bridge::RedundantMerge::Outcome::Late:
                return "late";
            case bridge::RedundantMerge::Outcome::Dropped:
                return "dropped";
            case bridge::RedundantMerge::Outcome::Incomplete:
                return "incomplete";
            }
            return "?";
        }
    }

    RedundantTargetApp::Path::Path(RedundantTargetApp& owner, std::size_t position, DemoOptions const& options)
        : app{owner}
        , number{position}
        , domain{options.domain}
        , instance{domain.str(), options.backend}
    {
        auto const& node = options.paths[number];
        // The interface first: a node this host does not have should not leave a flow behind.
        auto const interface = chooseInterface(instance.fabrics(), options.provider, node, options.service, EndpointRole::Target);
        flow = createTargetFlow(instance.mxl(), domain.str(), options);
        reader = client::FlowReader{instance.mxl(), flow.flowId};
        fmt::print("Path {}: node {}\n", number + 1, node);
        listening = listenOnFlow(instance.fabrics(), interface, flow, std::string{}, options);
    }

    RedundantTargetApp::RedundantTargetApp(DemoOptions const& options)
        : _count{options.count}
        , _instance{options.domain}
    {
        _flow = createTargetFlow(_instance.get(), options.domain, options);
        fmt::print("Target flow: {}\n", flowLabel(_flow));
        std::vector<mxlFlowReader> readers;
        for (std::size_t number = 0; number < options.paths.size(); ++number)
        {
            auto const& path = _paths.emplace_back(std::make_unique<Path>(*this, number, options));
            readers.push_back(path->reader.get());
        }
        if (mxlIsDiscreteDataFormat(static_cast<int>(_flow.config().common.format)))
        {
            _merge.emplace(_flow.writer.get(), std::move(readers));
        }
        else
        {
            _sampleMerge.emplace(_flow.writer.get(), std::move(readers));
        }
    }

    void RedundantTargetApp::run()
    {
        std::vector<int> eventFds;
        for (auto& path : _paths)
        {
            eventFds.push_back(startTargetEvents(path->listening.target.get(),
                                                 {{MXL_FABRICS_EVENT_GRAIN_ARRIVED, &RedundantTargetApp::onGrain},
                                                  {MXL_FABRICS_EVENT_SAMPLES_ARRIVED, &RedundantTargetApp::onSamples},
                                                  {MXL_FABRICS_EVENT_TARGET_FAILED, &RedundantTargetApp::onFailure}},
                                                 path.get()));
        }
        receive(eventFds);
        if (_merge)
        {
            _merge->finish();
        }
        else
        {
            _sampleMerge->finish();
        }
        _stats.printSummary();
        printPathCounters();
    }

    bool RedundantTargetApp::done() const
    {
        return tools::exitRequested() || (_count != 0 && _stats.grains() >= _count);
    }

    void RedundantTargetApp::receive(std::vector<int> const& eventFds)
    {
        std::vector<pollfd> events;
        for (auto const fd : eventFds)
        {
            events.push_back(pollfd{fd, POLLIN, 0});
        }
        while (!done())
        {
            if (_stats.due())
            {
                _stats.printIfDue();
                printPathCounters();
            }
            auto const ready = ::poll(events.data(), events.size(), targetPollTimeoutMs);
            if (ready < 0 && errno != EINTR)
            {
                tools::runtimeFailure("waiting for the paths' events failed: {}", std::strerror(errno));
            }
            for (std::size_t i = 0; ready > 0 && i < events.size(); ++i)
            {
                if ((events[i].revents & POLLIN) != 0)
                {
                    dispatchTargetEvents(_paths[i]->listening.target.get());
                }
            }
            if (_failure)
            {
                tools::runtimeFailure("{}", *_failure);
            }
        }
    }

    // Once --count grains are in, later events are not merged.
    void RedundantTargetApp::onGrain(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto const& path = *static_cast<Path*>(userData);
        if (!path.app.done() && !path.app._failure)
        {
            path.app.merge(path.number, event->grain);
        }
    }

    void RedundantTargetApp::onSamples(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto const& path = *static_cast<Path*>(userData);
        if (!path.app.done() && !path.app._failure)
        {
            path.app.mergeSamples(path.number, event->samples);
        }
    }

    void RedundantTargetApp::onFailure(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto const& path = *static_cast<Path*>(userData);
        path.app._failure = fmt::format("reading grains from path {} failed (mxlStatus {}): {}", path.number + 1,
                                        static_cast<int>(event->problem.status), event->problem.text);
    }

    void RedundantTargetApp::merge(std::size_t path, mxlFabricsGrainArrival const& arrival)
    {
        auto outcome = bridge::RedundantMerge::Outcome::Incomplete;
        try
        {
            outcome = _merge->arrived(path, arrival);
        }
        catch (std::exception const& error)
        {
            _failure = error.what();
            return;
        }
        log::debug("path {} grain {} slices {}/{} flags {}: {}", path + 1, arrival.index, arrival.validSlices, arrival.totalSlices,
                   arrival.flags, outcomeName(outcome));
        if (outcome != bridge::RedundantMerge::Outcome::Committed)
        {
            return;
        }
        _stats.setGrainsLost(_merge->uncommitted());
        _stats.bytesMoved(arrival.totalSlices * bytesPerSlice(_flow.config()));
        _stats.grainCompleted();
    }

    // A batch that moves the real flow's head counts as one grain of the stats line, and the samples passed over because
    // no path had them as its lost.
    void RedundantTargetApp::mergeSamples(std::size_t path, mxlFabricsSamplesArrival const& batch)
    {
        std::uint64_t moved = 0;
        auto const bytesBefore = _sampleMerge->copiedBytes();
        try
        {
            moved = _sampleMerge->arrived(path, batch);
        }
        catch (std::exception const& error)
        {
            _failure = error.what();
            return;
        }
        log::debug("path {} samples up to {} count {}: real flow head moved by {}", path + 1, batch.headIndex, batch.count, moved);
        if (moved == 0)
        {
            return;
        }
        _stats.setGrainsLost(_sampleMerge->skipped());
        _stats.bytesMoved(_sampleMerge->copiedBytes() - bytesBefore);
        _stats.grainCompleted();
    }

    std::vector<bridge::PathCounters> const& RedundantTargetApp::pathCounters() const
    {
        return _merge ? _merge->counters() : _sampleMerge->counters();
    }

    void RedundantTargetApp::printPathCounters() const
    {
        std::vector<std::uint64_t> first;
        std::vector<std::uint64_t> late;
        std::vector<std::uint64_t> missing;
        std::vector<std::uint64_t> dropped;
        for (auto const& counters : pathCounters())
        {
            first.push_back(counters.first);
            late.push_back(counters.late);
            missing.push_back(counters.missing);
            dropped.push_back(counters.dropped);
        }
        fmt::print("paths: first={} late={} missing={} dropped={}\n", fmt::join(first, ","), fmt::join(late, ","), fmt::join(missing, ","),
                   fmt::join(dropped, ","));
        std::fflush(stdout);
    }
}
