#include "InitiatorApp.hpp"
#include <client/SetupOptionsText.hpp>

#include "ToolError.hpp"

#include <ExitRequest.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/InitiatorTargets.hpp>
#include <common/Log.hpp>

#include <mxl/dataformat.h>
#include <mxl/fabrics.h>
#include <mxl/flow.h>
#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace mxl::demo
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        // A transfer that has not completed after this long is given up (counted lost); the next grain goes on.
        constexpr auto transferTimeout = std::chrono::seconds{2};
        constexpr auto disconnectTimeout = std::chrono::seconds{2};
        constexpr std::uint16_t progressTimeoutMs = 100;
        // How often target states are looked at: a lost target shows within this time.
        constexpr auto stateCheckInterval = std::chrono::milliseconds{200};

        // "grain 12 slices [0, 1080)", "samples up to 4800 (count 480)": for log lines and errors, formatted only for them.
        std::string describeUnit(bridge::TransferUnit kind, bridge::SourceUnit const& unit)
        {
            return kind == bridge::TransferUnit::Grain ? fmt::format("grain {} slices [{}, {})", unit.index, unit.startSlice, unit.endSlice)
                                                       : fmt::format("samples up to {} (count {})", unit.index, unit.samples);
        }

        std::string describeState(mxlFabricsTargetState state, std::string const& reason)
        {
            return state == MXL_FABRICS_TARGET_DISCONNECTED ? "disconnected: " + reason : client::targetStateName(state);
        }
    }

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
            _targets.push_back({std::move(ticket), client::OwnedTargetInfo{info}, MXL_FABRICS_TARGET_NOT_CONNECTED, {}});
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
        for (std::size_t i = 0; i < _targets.size(); ++i)
        {
            if (auto const addStatus = ::mxlFabricsInitiatorAddTarget(initiator, _targets[i].info.get()); addStatus != MXL_STATUS_OK)
            {
                tools::badInput("target info {} does not fit flow '{}': a different backend, provider or transport, or grains of another "
                                "size or layout (mxlStatus {}; "
                                "the library's message above says which)",
                                i + 1, _flowId, static_cast<int>(addStatus));
            }
        }
        // AddTarget refused a ticket of another transport than the initiator's: the first one speaks for all.
        fmt::print("Transport: {}\n", _targets.front().ticket.transport);
    }

    bool InitiatorApp::done() const
    {
        return tools::exitRequested() || (_count != 0 && _stats.grains() >= _count);
    }

    void InitiatorApp::run()
    {
        if (connect())
        {
            send();
        }
        refreshTargetStates();
        disconnect();
        _stats.printSummary();
    }

    bool InitiatorApp::connect()
    {
        auto const deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(_connectTimeout);
        while (!tools::exitRequested())
        {
            // OK once every target accepted: a target that never answers keeps this NOT_READY.
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator.get(), progressTimeoutMs);
            refreshTargetStates();
            if (status == MXL_STATUS_OK)
            {
                fmt::print("connected to {} target(s)\n", _targets.size());
                _lastDelivery = Clock::now();
                return true;
            }
            if (status != MXL_ERR_NOT_READY && status != MXL_ERR_INTERRUPTED)
            {
                tools::runtimeFailure("connecting to the targets failed (mxlStatus {})", static_cast<int>(status));
            }
            if (Clock::now() >= deadline)
            {
                std::string missing;
                for (std::size_t i = 0; i < _targets.size(); ++i)
                {
                    if (_targets[i].state != MXL_FABRICS_TARGET_CONNECTED)
                    {
                        missing += fmt::format("{}{} ({})", missing.empty() ? "" : ", ", i + 1,
                                               describeState(_targets[i].state, _targets[i].reason));
                    }
                }
                tools::badInput(
                    "target(s) {} did not accept a connection within {:.1f} s: the ticket is stale, or the target is not running or "
                    "not reachable",
                    missing, _connectTimeout.count());
            }
        }
        return false;
    }

    std::size_t InitiatorApp::refreshTargetStates()
    {
        std::size_t connected = 0;
        std::vector<std::uint64_t> skipped;
        std::vector<std::uint64_t> invalidated;
        for (std::size_t i = 0; i < _targets.size(); ++i)
        {
            auto& target = _targets[i];
            auto const counters = client::targetCounters(_initiator.get(), target.info.get());
            skipped.push_back(counters.transfersSkipped);
            invalidated.push_back(counters.transfersInvalidated);
            if ((counters.lagging != 0) != target.lagging)
            {
                target.lagging = counters.lagging != 0;
                if (target.lagging)
                {
                    fmt::print("target {}: lagging: its writes stopped completing; skipping it until it catches up\n", i + 1);
                }
                else
                {
                    fmt::print("target {}: caught up ({} transfer(s) skipped so far)\n", i + 1, counters.transfersSkipped);
                }
            }
            auto const current = client::targetState(_initiator.get(), target.info.get());
            if (!current)
            {
                continue;
            }
            if (current->state == MXL_FABRICS_TARGET_CONNECTED)
            {
                ++connected;
            }
            if (current->state == target.state)
            {
                continue;
            }
            target.state = current->state;
            if (current->state == MXL_FABRICS_TARGET_CONNECTED)
            {
                fmt::print("target {}: connected\n", i + 1);
            }
            else if (current->state == MXL_FABRICS_TARGET_DISCONNECTED)
            {
                target.reason = current->reason;
                fmt::print("target {}: disconnected: {}\n", i + 1, target.reason);
            }
        }
        _stats.targetCounts(std::move(skipped), std::move(invalidated));
        _connectedTargets = connected;
        _nextStateCheck = Clock::now() + stateCheckInterval;
        return connected;
    }

    void InitiatorApp::watchTargets()
    {
        if (Clock::now() >= _nextStateCheck)
        {
            refreshTargetStates();
        }
    }

    bool InitiatorApp::awaitReconnection()
    {
        auto const deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(_connectTimeout);
        while (!tools::exitRequested())
        {
            // The library reconnects lost targets in the background, during progress; with nothing in flight progress
            // returns at once, hence the sleep.
            ::mxlFabricsInitiatorMakeProgressNonBlocking(_initiator.get());
            if (refreshTargetStates() > 0)
            {
                return true;
            }
            if (Clock::now() >= deadline)
            {
                tools::runtimeFailure("every target has been disconnected for {:.1f} s", _connectTimeout.count());
            }
            std::this_thread::sleep_for(stateCheckInterval);
        }
        return false;
    }

    bool InitiatorApp::transfer(bridge::SourceCursor const& cursor, bridge::SourceUnit const& unit)
    {
        auto const start = Clock::now();
        // The library fans a transfer out to every connected target and reports the first target that failed; the
        // others already have it, so a failed post is never repeated (that would send them the grain twice).
        auto const posted = cursor.post(_initiator.get(), unit);
        // Lagging targets are skipped without an error: with all of them skipped the transfer went nowhere.
        bool const everyTargetSkipped = updateSkips();
        if (posted == MXL_ERR_INTERRUPTED)
        {
            // A target was lost while posting (reported once; the library reconnects it in the background).
            refreshTargetStates();
        }
        else if (posted != MXL_STATUS_OK && posted != MXL_ERR_NOT_READY)
        {
            tools::runtimeFailure("posting {} failed (mxlStatus {})", describeUnit(cursor.unit(), unit), static_cast<int>(posted));
        }
        // NOT_READY: a target's transmit queue stayed full (the library retried); with one target nothing went out.
        bool const reachedNone = _connectedTargets == 0 || everyTargetSkipped || (posted == MXL_ERR_NOT_READY && _connectedTargets == 1);

        auto const deadline = start + transferTimeout;
        while (true)
        {
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator.get(), progressTimeoutMs);
            if (status == MXL_STATUS_OK)
            {
                break;
            }
            // A signal (keep finishing this grain) or a target lost, reported once; the others still count.
            if (status == MXL_ERR_INTERRUPTED)
            {
                if (refreshTargetStates() == 0)
                {
                    return false;
                }
                continue;
            }
            if (status != MXL_ERR_NOT_READY)
            {
                tools::runtimeFailure("completing {} failed (mxlStatus {})", describeUnit(cursor.unit(), unit), static_cast<int>(status));
            }
            if (Clock::now() >= deadline)
            {
                fmt::print(stderr, "mxl-fabrics-demo: warning: {} did not complete within {} s\n", describeUnit(cursor.unit(), unit),
                           transferTimeout.count());
                return false;
            }
        }
        if (reachedNone)
        {
            return false;
        }
        _lastDelivery = Clock::now();
        _everDelivered = true;
        _stats.transferLatency(_lastDelivery - start);
        return true;
    }

    bool InitiatorApp::updateSkips()
    {
        bool everySkipped = true;
        for (auto& target : _targets)
        {
            auto const counters = client::targetCounters(_initiator.get(), target.info.get());
            everySkipped = everySkipped && counters.transfersSkipped > target.skipped;
            target.skipped = counters.transfersSkipped;
        }
        return everySkipped;
    }

    void InitiatorApp::checkDeliveries() const
    {
        auto const silence = std::chrono::duration<double>(Clock::now() - _lastDelivery);
        if (silence < _connectTimeout)
        {
            return;
        }
        // Connectionless providers (shm) "connect" to any ticket; a target that never took a grain is not there.
        if (!_everDelivered)
        {
            tools::badInput("the target(s) took no grain in {:.1f} s after connecting: the ticket is stale, or the target is not running",
                            silence.count());
        }
        tools::runtimeFailure("no grain could be delivered to any target for {:.1f} s", silence.count());
    }

    // Reads the source through the bridge's cursor, grains by slices (each range as the writer commits it), and posts each
    // unit to every connected target. Pacing comes from the source: a unit is read once its writer committed it.
    void InitiatorApp::send()
    {
        auto const cursor = bridge::makeSourceCursor(_reader.get(), _config, _flowId, bridge::GrainReading::BySlices);
        static_cast<void>(cursor->startAtPresent());
        while (!done())
        {
            if (_stats.due())
            {
                // The stats line's per-target skips are exact as of its printing.
                refreshTargetStates();
                _stats.printIfDue();
            }
            watchTargets();
            if (_connectedTargets == 0)
            {
                if (!awaitReconnection())
                {
                    break;
                }
                // The units of the outage are gone; carry on with the present.
                _stats.grainsLost(cursor->startAtPresent());
                continue;
            }
            auto const read = cursor->read();
            if (read.outcome == bridge::SourceCursor::Outcome::Gone)
            {
                log::debug("the source ring moved past the cursor; {} unit(s) skipped", read.skippedUnits);
                _stats.fellBehind();
                _stats.grainsLost(read.skippedUnits);
                continue;
            }
            if (read.outcome == bridge::SourceCursor::Outcome::NotDue)
            {
                // The source is late or stopped; keep the connections serviced while waiting for it.
                ::mxlFabricsInitiatorMakeProgressNonBlocking(_initiator.get());
                continue;
            }
            auto const& unit = read.unit;
            bool const sent = transfer(*cursor, unit);
            log::debug("{}{}", describeUnit(cursor->unit(), unit), sent ? "" : " not delivered");
            if (sent)
            {
                _stats.bytesMoved(unit.bytes);
                if (unit.completesGrain)
                {
                    _stats.grainCompleted();
                }
            }
            else
            {
                checkDeliveries();
                _stats.grainsLost(1);
            }
            cursor->advance(sent);
        }
    }

    void InitiatorApp::disconnect()
    {
        std::vector<mxlFabricsTargetInfo> targets;
        for (auto const& target : _targets)
        {
            targets.push_back(target.info.get());
        }
        if (client::leaveTargets(_initiator.get(), targets, disconnectTimeout))
        {
            fmt::print("disconnected\n");
            return;
        }
        fmt::print(stderr, "mxl-fabrics-demo: warning: the targets did not confirm the disconnect within {} s\n",
                   disconnectTimeout.count());
    }
}
