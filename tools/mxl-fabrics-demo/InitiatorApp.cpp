#include "InitiatorApp.hpp"
#include <client/SetupOptionsText.hpp>

#include "ToolError.hpp"

#include <ExitRequest.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/InitiatorTargets.hpp>

#include <mxl/dataformat.h>
#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <fmt/format.h>

namespace mxl::demo
{
    InitiatorApp::InitiatorApp(DemoOptions const& options)
        : _count{options.count}
        , _connectTimeout{options.connectTimeoutSeconds}
        , _flowId{options.flow}
        , _setupOptions{client::setupOptionsText(
              {std::nullopt, {}, options.ticketProof ? std::optional{options.ticketKeyFile} : std::nullopt})}
        , _instance{options.domain, options.backend}
    {
        loadTargets(options.targetInfo, options.ticketKeys);
        openFlow(options.domain);
        // Without -p the initiator speaks whatever its (first) ticket's target speaks.
        auto provider = options.provider;
        if (provider == MXL_FABRICS_PROVIDER_ANY)
        {
            auto const ticketProvider = client::parseProvider(_targets.front().ticket.provider);
            if (!ticketProvider || *ticketProvider == MXL_FABRICS_PROVIDER_ANY)
            {
                tools::badInput("the ticket names provider '{}', which this demo does not know", _targets.front().ticket.provider);
            }
            provider = *ticketProvider;
        }
        _interface = chooseInterface(_instance.fabrics(), provider, options.node, options.service, EndpointRole::Initiator);
        for (auto const& target : _targets)
        {
            if (target.ticket.provider != client::providerName(_interface.provider))
            {
                tools::badInput("a ticket is for a {} target, but this initiator uses {}", target.ticket.provider,
                                client::providerName(_interface.provider));
            }
        }
        setUpInitiator();
    }

    void InitiatorApp::loadTargets(std::vector<std::string> const& arguments, std::optional<signing::SigningKeys> const& keys)
    {
        for (auto const& argument : arguments)
        {
            auto ticket = loadTicket(argument, keys);
            mxlFabricsTargetInfo info = nullptr;
            if (auto const status = ::mxlFabricsTargetInfoFromString(ticket.json.c_str(), &info); status != MXL_STATUS_OK)
            {
                tools::badInput("the fabrics library rejected target info {} (mxlStatus {})", _targets.size() + 1,
                                static_cast<int>(status));
            }
            _targets.push_back({std::move(ticket), client::OwnedTargetInfo{info}});
        }
    }

    void InitiatorApp::openFlow(std::string const& domain)
    {
        mxlFlowReader reader = nullptr;
        auto const status = ::mxlCreateFlowReader(_instance.mxl(), _flowId.c_str(), nullptr, &reader);
        if (status == MXL_ERR_FLOW_NOT_FOUND || status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("flow '{}' does not exist in domain '{}' (mxlStatus {})", _flowId, domain, static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot read flow '{}' in domain '{}' (mxlStatus {})", _flowId, domain, static_cast<int>(status));
        }
        _reader = client::FlowReader{_instance.mxl(), reader};
        if (auto const infoStatus = ::mxlFlowReaderGetConfigInfo(reader, &_config); infoStatus != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot read the configuration of flow '{}' (mxlStatus {})", _flowId, static_cast<int>(infoStatus));
        }
        fmt::print("Initiator flow: {} ({})\n", _flowId, client::payloadLocationText(_config.common));
        bool const continuous = mxlIsContinuousDataFormat(static_cast<int>(_config.common.format));
        for (std::size_t i = 0; i < _targets.size(); ++i)
        {
            if (_targets[i].ticket.carriesSamples != continuous)
            {
                tools::badInput("target info {} is for {} flow, but flow '{}' is {}", i + 1, continuous ? "a video or data" : "an audio",
                                _flowId, continuous ? "audio" : "video or data");
            }
        }
    }

    void InitiatorApp::setUpInitiator()
    {
        _initiator = client::FabricsInitiator{_instance.fabrics()};
        auto const initiator = _initiator.get();

        auto const status = client::setUpInitiator(initiator, _interface, _reader.get(), _setupOptions);
        if (status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("the {} initiator cannot use node '{}' service '{}' (mxlStatus {})", client::providerName(_interface.provider),
                            _interface.node, _interface.service, static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("{} initiator setup for flow '{}' ({}) failed (mxlStatus {})", client::providerName(_interface.provider),
                                  _flowId, client::payloadLocationText(_config.common), static_cast<int>(status));
        }
        std::vector<mxlFabricsTargetInfo> targets;
        for (auto const& target : _targets)
        {
            targets.push_back(target.info.get());
        }
        _session.emplace(initiator, std::move(targets), _connectTimeout, _flowId);
        // AddTarget refused a ticket of another transport than the initiator's: the first one speaks for all.
        fmt::print("Transport: {}\n", _targets.front().ticket.transport);
    }

    void InitiatorApp::run()
    {
        // Grains by slices: each range goes out as the writer commits it.
        auto const cursor = bridge::makeSourceCursor(_reader.get(), _config, _flowId, bridge::GrainReading::BySlices);
        Report report{_count, _stats};
        _session->run(*cursor, report);
        _stats.printSummary();
    }

    InitiatorApp::Report::Report(std::uint64_t count, TransferStats& stats)
        : _count{count}
        , _stats{stats}
    {
    }

    bool InitiatorApp::Report::stopRequested()
    {
        return tools::exitRequested() || (_count != 0 && _stats.grains() >= _count);
    }

    void InitiatorApp::Report::connected(std::size_t targets)
    {
        fmt::print("connected to {} target(s)\n", targets);
    }

    void InitiatorApp::Report::targetConnected(std::size_t index)
    {
        fmt::print("target {}: connected\n", index + 1);
    }

    void InitiatorApp::Report::targetDisconnected(std::size_t index, std::string const& reason)
    {
        fmt::print("target {}: disconnected: {}\n", index + 1, reason);
    }

    void InitiatorApp::Report::targetLagging(std::size_t index, bool lagging, std::uint64_t skipped)
    {
        if (lagging)
        {
            fmt::print("target {}: lagging: its writes stopped completing; skipping it until it catches up\n", index + 1);
        }
        else
        {
            fmt::print("target {}: caught up ({} transfer(s) skipped so far)\n", index + 1, skipped);
        }
    }

    void InitiatorApp::Report::targetCounts(std::vector<std::uint64_t> const& skipped, std::vector<std::uint64_t> const& invalidated)
    {
        _stats.targetCounts(skipped, invalidated);
    }

    bool InitiatorApp::Report::reportDue()
    {
        return _stats.due();
    }

    void InitiatorApp::Report::report()
    {
        _stats.printIfDue();
    }

    void InitiatorApp::Report::delivered(bridge::SourceUnit const& unit, std::chrono::nanoseconds latency)
    {
        _stats.transferLatency(latency);
        _stats.bytesMoved(unit.bytes);
        if (unit.completesGrain)
        {
            _stats.grainCompleted();
        }
    }

    void InitiatorApp::Report::timedOut(std::string const& unit, std::chrono::seconds timeout)
    {
        fmt::print(stderr, "mxl-fabrics-demo: warning: {} did not complete within {} s\n", unit, timeout.count());
    }

    void InitiatorApp::Report::lost(std::uint64_t units)
    {
        _stats.grainsLost(units);
    }

    void InitiatorApp::Report::fellBehind()
    {
        _stats.fellBehind();
    }

    void InitiatorApp::Report::disconnected(bool confirmed, std::chrono::seconds timeout)
    {
        if (confirmed)
        {
            fmt::print("disconnected\n");
            return;
        }
        fmt::print(stderr, "mxl-fabrics-demo: warning: the targets did not confirm the disconnect within {} s\n", timeout.count());
    }
}
