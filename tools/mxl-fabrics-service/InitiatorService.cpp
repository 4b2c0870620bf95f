#include "InitiatorService.hpp"

#include "DomainIdentity.hpp"
#include "ServiceLog.hpp"
#include "ServiceNode.hpp"

#include <ExitRequest.hpp>
#include <ReloadRequest.hpp>
#include <client/ClientError.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/FlowDefinitionText.hpp>
#include <client/FlowId.hpp>
#include <client/InitiatorTargets.hpp>
#include <common/FlowPaths.hpp>
#include <common/StatusName.hpp>

#include <mxl/flow.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <thread>

namespace mxl::service
{
    namespace
    {
        mxlFlowConfigInfo configOf(client::FlowReader const& reader, std::string const& flowId)
        {
            mxlFlowConfigInfo flow{};
            if (auto const status = ::mxlFlowReaderGetConfigInfo(reader.get(), &flow); status != MXL_STATUS_OK)
            {
                throw std::runtime_error{fmt::format("cannot read the configuration of flow {}: {}", flowId, mxl::statusName(status))};
            }
            return flow;
        }

        bridge::SenderSettings sessionSettings(ServiceConfig const& config, client::FabricsInterface const& interface)
        {
            return {config.flowId,         client::providerName(interface.provider),
                    config.connectTimeout, config.stallTimeout,
                    config.lateAfter,      config.backoffInitial,
                    config.backoffMax};
        }
    }

    InitiatorService::InitiatorService(ServiceConfig const& config, Notifier& notifier)
        : _config{config}
        , _notifier{notifier}
        , _instance{config.domain}
        , _reader{_instance, config.flowId}
        , _flow{configOf(_reader, config.flowId)}
        , _source{bridge::makeSourceCursor(_reader.get(), _flow, config.flowId)}
        , _fabrics{_instance.get(), config.backend}
        , _interface{selectInterface(_fabrics.get(), config)}
        , _initiator{_fabrics.get()}
        , _tickets{directory::TicketSource{config.ticketSources,
                                           std::min<std::chrono::milliseconds>(config.ticketPoll, std::chrono::milliseconds{500}),
                                           config.ticketKeys}}
        , _metrics{"initiator", config.flowId, _flow}
        , _session{_initiator.get(), *_source, _flow, _metrics, sessionSettings(config, _interface), *this}
        , _statusFile{config}
    {
        if (auto const status = client::setUpInitiator(_initiator.get(), _interface, _reader.get(), config.setupOptions);
            status != MXL_STATUS_OK)
        {
            throw ConfigError{fmt::format("{}: the {} initiator cannot use node '{}' (keys 'provider', 'node', 'transport'): {}",
                                          config.origin, client::providerName(_interface.provider), _interface.node,
                                          mxl::statusName(status))};
        }
        auto const domainId = establishDomainIdentity(config.domain);
        _enabled = !_tickets.source().empty();
        if (config.http)
        {
            std::map<std::string, HttpResource> resources;
            resources["/metrics"] = {"text/plain; version=0.0.4", [this] { return std::optional{_metrics.prometheus()}; }};
            _nmos = startServiceNode(
                config, nmos::Role::Sender, client::readFlowDefinition(_instance.get(), config.flowId), _enabled,
                [this, domainId](std::string const& url) { return transportParams(domainId, url); }, std::move(resources));
        }
        _metrics.setState(_enabled ? "waiting" : "disabled");
        if (!_enabled)
        {
            log::info("no 'ticket' configured: waiting for an IS-05 activation of sender {} (a receiver hands over its ticket)",
                      _nmos->endpointId());
        }
        log::info("initiator for flow {} in domain '{}' ({}) over {}", config.flowId, config.domain.string(),
                  client::payloadLocationText(_flow.common), client::providerName(_interface.provider));
    }

    void InitiatorService::run()
    {
        tools::setActivity(fmt::format("fetching a ticket for flow {}", _config.flowId));
        while (!tools::exitRequested())
        {
            tools::markProgress();
            auto const now = Clock::now();
            _notifier.keepAlive();
            statusTick(now);
            applyActivation(now);
            if (tools::takeReloadRequest())
            {
                reloadCertificate(_nmos.get());
            }
            if (_session.takeRefetchWanted())
            {
                _nextTicketPoll = now;
            }
            if (_enabled && !_sourceLost && now >= _nextTicketPoll)
            {
                pollTicket(now);
            }
            takeFetchedTicket();
            if (_sourceLost)
            {
                reattachSource(now);
                continue;
            }
            try
            {
                _session.step(now);
            }
            catch (bridge::SourceGone const& gone)
            {
                loseSource(gone.what());
            }
        }
        _metrics.setState("stopping");
        _notifier.stopping(_metrics.statusLine());
        tools::setActivity("stopping: disconnecting from the target (the fabrics library)");
        if (!_sourceLost)
        {
            _session.disconnect();
        }
        log::info("stopping: {}", _metrics.statusLine());
    }

    void InitiatorService::loseSource(std::string const& why)
    {
        log::warning("{}: leaving the target and waiting for the flow to be there again", why);
        tools::setActivity(fmt::format("waiting for flow {} to be there again", _config.flowId));
        _session.disconnect();
        // An instance shares one reader per flow, so the deleted flow's reader goes before the flow is opened again, and
        // the initiator that reads it (and registered its memory) before the reader.
        _initiator = client::FabricsInitiator{_fabrics.get()};
        _source.reset();
        _reader = client::FlowReader{};
        _metrics.setState("waiting");
        _sourceLost = true;
    }

    void InitiatorService::reattachSource(Clock::time_point now)
    {
        auto const id = client::canonicalFlowId(_config.flowId).value_or(_config.flowId);
        if (!std::filesystem::exists(paths::flowDirectory(_config.domain, id)))
        {
            std::this_thread::sleep_for(std::chrono::milliseconds{100});
            return;
        }
        client::FlowReader reader;
        try
        {
            reader = client::FlowReader{_instance, _config.flowId};
        }
        catch (client::ClientError const&)
        {
            // Gone again between the look and the open.
            std::this_thread::sleep_for(std::chrono::milliseconds{100});
            return;
        }
        auto const flow = configOf(reader, _config.flowId);
        if (std::memcmp(&flow, &_flow, sizeof flow) != 0)
        {
            throw std::runtime_error{fmt::format("flow {} came back with another configuration (format, rate, geometry or ring): the "
                                                 "service ends so that it is started afresh on it",
                                                 _config.flowId)};
        }
        auto source = bridge::makeSourceCursor(reader.get(), flow, _config.flowId);
        if (auto const status = client::setUpInitiator(_initiator.get(), _interface, reader.get(), _config.setupOptions);
            status != MXL_STATUS_OK)
        {
            throw std::runtime_error{
                fmt::format("setting the initiator up again on flow {} failed: {}", _config.flowId, mxl::statusName(status))};
        }
        _session.reattach(_initiator.get(), *source);
        _source = std::move(source);
        _reader = std::move(reader);
        _sourceLost = false;
        _nextTicketPoll = now;
        log::info("flow {} is there again: reading it, and adding the target again", _config.flowId);
    }

    void InitiatorService::pollTicket(Clock::time_point now)
    {
        _nextTicketPoll = now + _config.ticketPoll;
        if (_activatedTicket)
        {
            std::string why;
            auto ticket = _tickets.source().verifiedTicket(*_activatedTicket, why);
            offerTicket(std::move(ticket), "IS-05 ext_mxl_target_ticket",
                        fmt::format("the ticket of the IS-05 activation (ext_mxl_target_ticket): {}", why), bridge::Handover::AtOnce);
            return;
        }
        if (!_tickets.source().empty())
        {
            _tickets.request();
        }
    }

    void InitiatorService::takeFetchedTicket()
    {
        auto fetched = _tickets.take();
        if (!fetched || _activatedTicket || !_enabled || _sourceLost)
        {
            return;
        }
        _sourceOutages.note(*fetched, _session.hasTarget());
        if (fetched->ticket)
        {
            offerTicket(std::move(fetched->ticket), fetched->origin, {});
        }
    }

    void InitiatorService::offerTicket(std::optional<Ticket> ticket, std::string const& origin, std::string const& problem,
                                       bridge::Handover handover)
    {
        if (!ticket)
        {
            if (problem != _lastTicketProblem)
            {
                _lastTicketProblem = problem;
                log::warning("no ticket{}: {}; still fetching", _session.hasTarget() ? " now (keeping the current one)" : "",
                             _lastTicketProblem);
            }
            return;
        }
        _lastTicketProblem.clear();
        _session.offer(std::move(*ticket), origin, handover);
    }

    void InitiatorService::statusTick(Clock::time_point now)
    {
        if (now < _nextStatus)
        {
            return;
        }
        _nextStatus = now + _config.statusInterval;
        auto const line = _metrics.statusLine();
        _notifier.status(line);
        log::debug("status: {}", line);
        _statusFile.publish(_metrics, _session.targetStatus(now));
    }

    void InitiatorService::connected()
    {
        _notifier.ready(_metrics.statusLine());
    }

    void InitiatorService::establishing(std::string const& activity)
    {
        tools::setActivity(activity);
    }
}
