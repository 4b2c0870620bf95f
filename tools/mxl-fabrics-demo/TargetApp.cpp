#include "TargetApp.hpp"

#include "TargetSetup.hpp"
#include "ToolError.hpp"

#include <ExitRequest.hpp>
#include <common/Log.hpp>

#include <mxl/dataformat.h>
#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <fmt/format.h>

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace mxl::demo
{
    TargetApp::TargetApp(DemoOptions const& options)
        : _count{options.count}
        , _instance{options.domain, options.backend}
    {
        // The interface first: a wrong provider, node or service should not leave a flow behind.
        _interface = chooseInterface(_instance.fabrics(), options.provider, options.node, options.service, EndpointRole::Target);
        createFlow(options);
        setUpTarget(options.targetInfo.empty() ? std::string{} : options.targetInfo.front(), options);
    }

    void TargetApp::createFlow(DemoOptions const& options)
    {
        _flow = createTargetFlow(_instance.mxl(), options.domain, options);
        _reader = client::FlowReader{_instance.mxl(), _flow.flowId};
        _tally.emplace(_reader.get(), _flow.config());
        fmt::print("Target flow: {}\n", flowLabel(_flow));
    }

    void TargetApp::setUpTarget(std::string const& ticketFile, DemoOptions const& options)
    {
        auto listening = listenOnFlow(_instance.fabrics(), _interface, _flow, ticketFile, options);
        _target = std::move(listening.target);
        _targetInfo = std::move(listening.info);
    }

    bool TargetApp::done() const
    {
        return tools::exitRequested() || (_count != 0 && _stats.grains() >= _count);
    }

    void TargetApp::run()
    {
        receive(startEvents());
        _stats.printSummary();
    }

    int TargetApp::startEvents()
    {
        return startTargetEvents(_target.get(),
                                 {{MXL_FABRICS_EVENT_GRAIN_ARRIVED, &TargetApp::onGrain},
                                  {MXL_FABRICS_EVENT_SAMPLES_ARRIVED, &TargetApp::onSamples},
                                  {MXL_FABRICS_EVENT_ARRIVAL_LOST, &TargetApp::onLost},
                                  {MXL_FABRICS_EVENT_TARGET_FAILED, &TargetApp::onFailure}},
                                 this);
    }

    void TargetApp::receive(int eventFd)
    {
        bool const grains = mxlIsDiscreteDataFormat(static_cast<int>(_flow.config().common.format));
        pollfd events{eventFd, POLLIN, 0};
        while (!done())
        {
            _stats.printIfDue();
            auto const ready = ::poll(&events, 1, targetPollTimeoutMs);
            if (ready < 0 && errno != EINTR)
            {
                tools::runtimeFailure("waiting for the target's events failed: {}", std::strerror(errno));
            }
            if (ready > 0)
            {
                dispatchTargetEvents(_target.get());
            }
            if (_readFailure)
            {
                tools::runtimeFailure("reading {} from the fabric failed (mxlStatus {})", grains ? "grains" : "samples",
                                      static_cast<int>(*_readFailure));
            }
        }
    }

    // Once --count grains are in, later events are not accounted, as the reading loop would not have read them.
    void TargetApp::onGrain(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto& app = *static_cast<TargetApp*>(userData);
        if (!app.done())
        {
            app.account(app._tally->grain(event->grain));
        }
    }

    void TargetApp::onSamples(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto& app = *static_cast<TargetApp*>(userData);
        if (!app.done())
        {
            app.account(app._tally->samples(event->samples));
        }
    }

    // A grain's slot or a batch's bounce-buffer entry was rewritten before the target read it (the library logged
    // which): that one is lost, the next one is not.
    void TargetApp::onLost(mxlFabricsTarget, mxlFabricsEvent const*, void* userData)
    {
        auto& app = *static_cast<TargetApp*>(userData);
        if (!app.done())
        {
            app._stats.grainsLost(1);
        }
    }

    void TargetApp::onFailure(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        static_cast<TargetApp*>(userData)->_readFailure = event->problem.status;
    }

    // The library has already published what arrived to local readers (a grain's validSlices, head index, wake-up; a
    // batch copied into the flow and committed), so the SDK demo's OpenGrain + CommitGrain would only repeat that: this
    // only counts.
    void TargetApp::account(bridge::ArrivalTally::Counted const& counted)
    {
        _stats.grainsLost(counted.lost);
        if (counted.completed)
        {
            auto const& unit = *counted.completed;
            log::debug("{} {} arrived, {} bytes", unit.samples == 0 ? "grain" : "samples up to", unit.last, unit.bytes);
            _stats.bytesMoved(unit.bytes);
            _stats.grainCompleted();
        }
    }
}
