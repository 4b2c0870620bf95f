#include "RedundantTargetApp.hpp"

#include "InterfaceChoice.hpp"
#include "TargetSetup.hpp"
#include "ToolError.hpp"
#include <client/TextFile.hpp>

#include <ExitRequest.hpp>

#include <mxl/fabrics.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <exception>

namespace mxl::demo
{
    RedundantTargetApp::RedundantTargetApp(DemoOptions const& options)
        : _count{options.count}
        , _instance{options.domain}
    {
        _flow = createTargetFlow(_instance.get(), options.domain, options);
        fmt::print("Target flow: {}\n", flowLabel(_flow));
        bridge::PathSettings const settings{options.domain,      client::readTextFile(options.flow, "flow definition"),
                                            options.flowOptions, fmt::format("'{}'", options.flow),
                                            options.backend,     targetSetupOptions(options),
                                            options.paths};
        _paths = std::make_unique<bridge::PathTargets>(
            settings, _flow.writer.get(), bridge::transferUnitOf(_flow.config()),
            [this](std::uint64_t, std::uint64_t bytes, std::uint64_t)
            {
                _stats.bytesMoved(bytes);
                _stats.grainCompleted();
            },
            [&options](mxlFabricsInstance fabrics, std::string const& node)
            { return chooseInterface(fabrics, options.provider, node, options.service, EndpointRole::Target); });
        auto const tickets = _paths->listen();
        for (std::size_t number = 0; number < tickets.size(); ++number)
        {
            fmt::print("Path {}: node {}\n", number + 1, options.paths[number]);
            announceTicket(tickets[number], {}, options);
            _pathEvents.push_back({this, number});
        }
    }

    void RedundantTargetApp::run()
    {
        std::vector<int> eventFds;
        for (auto& path : _pathEvents)
        {
            eventFds.push_back(startTargetEvents(_paths->target(path.number),
                                                 {{MXL_FABRICS_EVENT_GRAIN_ARRIVED, &RedundantTargetApp::onGrain},
                                                  {MXL_FABRICS_EVENT_SAMPLES_ARRIVED, &RedundantTargetApp::onSamples},
                                                  {MXL_FABRICS_EVENT_TARGET_FAILED, &RedundantTargetApp::onFailure}},
                                                 &path));
        }
        receive(eventFds);
        _paths->finish();
        _stats.setGrainsLost(_paths->lost());
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
                    dispatchTargetEvents(_paths->target(i));
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
        auto const& path = *static_cast<PathEvents*>(userData);
        path.app->merge(path.number, event->grain);
    }

    void RedundantTargetApp::onSamples(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto const& path = *static_cast<PathEvents*>(userData);
        path.app->merge(path.number, event->samples);
    }

    void RedundantTargetApp::onFailure(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto const& path = *static_cast<PathEvents*>(userData);
        path.app->_failure = fmt::format("reading grains from path {} failed (mxlStatus {}): {}", path.number + 1,
                                         static_cast<int>(event->problem.status), event->problem.text);
    }

    // A batch that moves the real flow's head counts as one grain of the stats line; lost are the grains no path
    // delivered, or the runs of samples the real flow's head passed over because no path had them.
    template <typename Arrival>
    void RedundantTargetApp::merge(std::size_t path, Arrival const& arrival)
    {
        if (done() || _failure)
        {
            return;
        }
        try
        {
            if constexpr (std::is_same_v<Arrival, mxlFabricsGrainArrival>)
            {
                _paths->mergeGrain(path, arrival);
            }
            else
            {
                _paths->mergeSamples(path, arrival);
            }
        }
        catch (std::exception const& error)
        {
            _failure = error.what();
            return;
        }
        _stats.setGrainsLost(_paths->lost());
    }

    void RedundantTargetApp::printPathCounters() const
    {
        std::vector<std::uint64_t> first;
        std::vector<std::uint64_t> late;
        std::vector<std::uint64_t> missing;
        std::vector<std::uint64_t> dropped;
        for (auto const& counters : _paths->counters())
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
