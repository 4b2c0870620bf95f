#include "TargetApp.hpp"

#include <TicketSignature.hpp>

#include "TextFile.hpp"
#include "Ticket.hpp"
#include "ToolError.hpp"
#include "common/Base64.hpp"

#include <ExitRequest.hpp>
#include <FabricsInterfaces.hpp>
#include <common/Log.hpp>

#include <mxl/dataformat.h>
#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <fmt/format.h>

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace mxl::demo
{
    namespace
    {
        // Long enough to keep the loop idle while nothing arrives, short enough to see a signal or --count promptly.
        constexpr int pollTimeoutMs = 200;

        std::string formatUuid(std::uint8_t const (&id)[16])
        {
            std::string text;
            for (std::size_t i = 0; i < 16; ++i)
            {
                if (i == 4 || i == 6 || i == 8 || i == 10)
                {
                    text += '-';
                }
                text += fmt::format("{:02x}", id[i]);
            }
            return text;
        }

        std::uint64_t bytesPerSlice(mxlFlowConfigInfo const& config)
        {
            std::uint64_t bytes = 0;
            for (auto const size : config.discrete.sliceSizes)
            {
                bytes += size;
            }
            return bytes;
        }
    }

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
        auto const definition = tools::readTextFile(options.flow, "flow definition");
        auto const writerOptions =
            options.flowOptionsFile.empty() ? std::string{} : tools::readTextFile(options.flowOptionsFile, "flow options");

        mxlFlowWriter writer = nullptr;
        bool created = false;
        auto const status = ::mxlCreateFlowWriter(_instance.mxl(), definition.c_str(),
                                                  writerOptions.empty() ? nullptr : writerOptions.c_str(), &writer, &_config, &created);
        if (status == MXL_ERR_UNKNOWN || status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("flow definition '{}'{} rejected (mxlStatus {}; MXL_LOG_LEVEL=warn shows why)", options.flow,
                            writerOptions.empty() ? "" : fmt::format(" with options '{}'", options.flowOptionsFile),
                            static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot create a writer for flow definition '{}' in domain '{}' (mxlStatus {})", options.flow,
                                  options.domain, static_cast<int>(status));
        }
        _writer = FlowWriter{_instance.mxl(), writer};
        _flowId = formatUuid(_config.common.id);
        if (!created)
        {
            fmt::print(stderr, "mxl-fabrics-demo: warning: reusing existing flow {} in domain '{}' (its definition file was ignored)\n",
                       _flowId, options.domain);
        }

        mxlFlowReader reader = nullptr;
        if (auto const readerStatus = ::mxlCreateFlowReader(_instance.mxl(), _flowId.c_str(), nullptr, &reader);
            readerStatus != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot read back flow {} (mxlStatus {})", _flowId, static_cast<int>(readerStatus));
        }
        _reader = FlowReader{_instance.mxl(), reader};
        fmt::print("Target flow: {}\n", _flowId);
    }

    void TargetApp::setUpTarget(std::string const& ticketFile, DemoOptions const& options)
    {
        mxlFabricsTarget target = nullptr;
        if (auto const status = ::mxlFabricsCreateTarget(_instance.fabrics(), &target); status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot create a fabrics target (mxlStatus {})", static_cast<int>(status));
        }
        _target = FabricsTarget{_instance.fabrics(), target};

        mxlFabricsTargetConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.interface = interfaceConfig(_interface);
        config.writer = _writer.get();
        mxlFabricsTargetInfo info = nullptr;
        auto const status = ::mxlFabricsTargetSetup(target, &config, nullptr, &info);
        if (status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("the {} target cannot listen on node '{}' service '{}' (mxlStatus {})",
                            tools::providerName(_interface.provider), _interface.node, _interface.service, static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("{} target setup on node '{}' service '{}' failed (mxlStatus {})",
                                  tools::providerName(_interface.provider), _interface.node, _interface.service, static_cast<int>(status));
        }
        _targetInfo = TargetInfo{info};

        std::size_t size = 0;
        if (auto const sizeStatus = ::mxlFabricsTargetInfoToString(info, nullptr, &size); sizeStatus != MXL_STATUS_OK || size == 0)
        {
            tools::runtimeFailure("cannot serialize the target info (mxlStatus {})", static_cast<int>(sizeStatus));
        }
        std::vector<char> text(size);
        if (auto const textStatus = ::mxlFabricsTargetInfoToString(info, text.data(), &size); textStatus != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot serialize the target info (mxlStatus {})", static_cast<int>(textStatus));
        }
        // The size counts the terminating NUL, which belongs neither in the base64 nor in the file.
        std::string json{text.data()};
        if (options.ticketKeys)
        {
            json = signing::signTicket(json, options.ticketKeys->current, std::chrono::system_clock::now() + options.ticketLifetime);
            fmt::print("Ticket signed with key '{}', valid for {} s\n", options.ticketKeys->current.id, options.ticketLifetime.count());
        }
        if (!ticketFile.empty())
        {
            writeTicketFile(ticketFile, json);
        }
        fmt::print("Target info: {}\n", mxl::encodeBase64(json));
        std::fflush(stdout);
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
        auto* const target = _target.get();
        for (auto const& [type, handler] : {std::pair{MXL_FABRICS_EVENT_GRAIN_ARRIVED, &TargetApp::onGrain},
                                            std::pair{MXL_FABRICS_EVENT_SAMPLES_ARRIVED, &TargetApp::onSamples},
                                            std::pair{MXL_FABRICS_EVENT_ARRIVAL_LOST, &TargetApp::onLost},
                                            std::pair{MXL_FABRICS_EVENT_TARGET_FAILED, &TargetApp::onFailure}})
        {
            if (auto const status = ::mxlFabricsTargetSetEventHandler(target, type, handler, this); status != MXL_STATUS_OK)
            {
                tools::runtimeFailure("cannot set the target's event handler of type {} (mxlStatus {})", static_cast<int>(type),
                                      static_cast<int>(status));
            }
        }
        int eventFd = -1;
        if (auto const status = ::mxlFabricsTargetStartEvents(target, 0, &eventFd); status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot start the target's events (mxlStatus {})", static_cast<int>(status));
        }
        return eventFd;
    }

    void TargetApp::receive(int eventFd)
    {
        bool const grains = mxlIsDiscreteDataFormat(static_cast<int>(_config.common.format));
        pollfd events{eventFd, POLLIN, 0};
        while (!done())
        {
            _stats.printIfDue();
            auto const ready = ::poll(&events, 1, pollTimeoutMs);
            if (ready < 0 && errno != EINTR)
            {
                tools::runtimeFailure("waiting for the target's events failed: {}", std::strerror(errno));
            }
            if (ready > 0)
            {
                std::size_t dispatched = 0;
                if (auto const status = ::mxlFabricsTargetDispatchEvents(_target.get(), 0, &dispatched);
                    status != MXL_STATUS_OK && status != MXL_ERR_NOT_READY)
                {
                    tools::runtimeFailure("dispatching the target's events failed (mxlStatus {})", static_cast<int>(status));
                }
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
            _stats.bytesMoved((arrival.validSlices - _grain.validSlices) * bytesPerSlice(_config));
            _grain.validSlices = arrival.validSlices;
        }
        bool const invalid = (arrival.flags & MXL_GRAIN_FLAG_INVALID) != 0;
        log::debug("grain {} slices {}/{} bytes {}{}", arrival.index, arrival.validSlices, arrival.totalSlices,
                   arrival.validSlices * bytesPerSlice(_config), invalid ? " (invalid)" : "");
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
