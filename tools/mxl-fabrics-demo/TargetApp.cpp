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
            app.account(event->grain);
        }
    }

    void TargetApp::onSamples(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto& app = *static_cast<TargetApp*>(userData);
        if (!app.done())
        {
            app.account(event->samples);
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

    // The library has already published the grain to local readers (validSlices from the transfer, head index, wake-up),
    // so the SDK demo's OpenGrain + CommitGrain would only repeat that; this only looks at what arrived.
    void TargetApp::account(mxlFabricsGrainArrival const& arrival)
    {
        if (!_grain.any || arrival.index != _grain.index)
        {
            if (_grain.any && arrival.index > _grain.index + 1)
            {
                _stats.grainsLost(arrival.index - _grain.index - 1);
            }
            _grain = GrainProgress{arrival.index, 0, false, true};
        }
        if (arrival.validSlices > _grain.validSlices)
        {
            _stats.bytesMoved((arrival.validSlices - _grain.validSlices) * bytesPerSlice(_flow.config()));
            _grain.validSlices = arrival.validSlices;
        }
        bool const invalid = (arrival.flags & MXL_GRAIN_FLAG_INVALID) != 0;
        log::debug("grain {} slices {}/{} bytes {}{}", arrival.index, arrival.validSlices, arrival.totalSlices,
                   arrival.validSlices * bytesPerSlice(_flow.config()), invalid ? " (invalid)" : "");
        if (!_grain.completed && (invalid || arrival.validSlices >= arrival.totalSlices))
        {
            _grain.completed = true;
            _stats.grainCompleted();
        }
    }

    // The library copied the batch into the flow and committed it: local readers already see it.
    void TargetApp::account(mxlFabricsSamplesArrival const& arrival)
    {
        if (_expectedHead != 0 && arrival.headIndex != _expectedHead)
        {
            _stats.grainsLost(1);
        }
        _expectedHead = arrival.headIndex + arrival.count;
        mxlWrappedMultiBufferSlice slices{};
        std::uint64_t bytes = 0;
        if (::mxlFlowReaderGetSamplesNonBlocking(_reader.get(), arrival.headIndex, arrival.count, &slices) == MXL_STATUS_OK)
        {
            bytes = (slices.base.fragments[0].size + slices.base.fragments[1].size) * slices.count;
        }
        log::debug("samples up to {} count {} bytes {}", arrival.headIndex, arrival.count, bytes);
        _stats.bytesMoved(bytes);
        _stats.grainCompleted();
    }
}
