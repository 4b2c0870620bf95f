#include "InitiatorService.hpp"

#include "DomainIdentity.hpp"
#include "ServiceLog.hpp"
#include "ServiceNode.hpp"

#include <ExitRequest.hpp>
#include <ReloadRequest.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/FlowDefinitionText.hpp>
#include <common/StatusName.hpp>

#include <mxl/flow.h>
#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace mxl::service
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        constexpr std::uint16_t progressSliceMs = 50;

        std::int64_t msSince(Clock::time_point then, Clock::time_point now)
        {
            return std::chrono::duration_cast<std::chrono::milliseconds>(now - then).count();
        }

        std::string stateName(mxlFabricsTargetState state)
        {
            switch (state)
            {
            case MXL_FABRICS_TARGET_NOT_CONNECTED:
                return "not connected";
            case MXL_FABRICS_TARGET_CONNECTING:
                return "connecting";
            case MXL_FABRICS_TARGET_CONNECTED:
                return "connected";
            case MXL_FABRICS_TARGET_DISCONNECTED:
                return "disconnected";
            }
            return fmt::format("state {}", static_cast<int>(state));
        }

        mxlFlowConfigInfo configOf(client::FlowReader const& reader, std::string const& flowId)
        {
            mxlFlowConfigInfo flow{};
            if (auto const status = ::mxlFlowReaderGetConfigInfo(reader.get(), &flow); status != MXL_STATUS_OK)
            {
                throw std::runtime_error{fmt::format("cannot read the configuration of flow {}: {}", flowId, mxl::statusName(status))};
            }
            return flow;
        }

        char const* kindOf(bool samples)
        {
            return samples ? "an audio flow" : "a video or data flow";
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
        , _initiator{_fabrics.get()} // An unreachable target must not hold the loop (and the watchdog pings) for longer than a poll.
        , _tickets{config.ticketSources, std::min<std::chrono::milliseconds>(config.ticketPoll, std::chrono::milliseconds{500}),
                   config.ticketKeys}
        , _metrics{"initiator", config.flowId, _flow}
        , _statusFile{config}
        , _backoff{config.backoffInitial, config.backoffMax}
    {
        mxlFabricsInitiatorConfig setup{};
        setup.version = MXL_FABRICS_API_VERSION;
        setup.interface = client::interfaceConfig(_interface);
        setup.reader = _reader.get();
        if (auto const status = ::mxlFabricsInitiatorSetup(_initiator.get(), &setup, config.setupOptions.c_str()); status != MXL_STATUS_OK)
        {
            throw ConfigError{fmt::format("{}: the {} initiator cannot use node '{}' (keys 'provider', 'node', 'transport'): {}",
                                          config.origin, client::providerName(_interface.provider), _interface.node,
                                          mxl::statusName(status))};
        }
        auto const domainId = establishDomainIdentity(config.domain);
        _enabled = !_tickets.empty();
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
            if (_enabled && now >= _nextTicketPoll)
            {
                pollTicket(now);
            }
            if (!_target)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{progressSliceMs});
                continue;
            }
            refreshState(now);
            if (_target->state != MXL_FABRICS_TARGET_CONNECTED)
            {
                awaitConnection(now);
                continue;
            }
            sendNext();
        }
        _metrics.setState("stopping");
        _notifier.stopping(_metrics.statusLine());
        tools::setActivity("stopping: disconnecting from the target (the fabrics library)");
        disconnect();
        log::info("stopping: {}", _metrics.statusLine());
    }

    void InitiatorService::pollTicket(Clock::time_point now)
    {
        _nextTicketPoll = now + _config.ticketPoll;
        std::string missing;
        auto ticket = fetchTicket(missing);
        if (!ticket)
        {
            if (missing != _lastTicketProblem)
            {
                _lastTicketProblem = missing;
                log::warning("no ticket{}: {}; still fetching", _target ? " now (keeping the current one)" : "", _lastTicketProblem);
            }
            return;
        }
        _lastTicketProblem.clear();
        if (auto const problem = unusable(*ticket); !problem.empty())
        {
            reportTicketProblem(fmt::format("the ticket from '{}' (epoch {}) cannot be used: {}; {}", _ticketOrigin, ticket->epoch, problem,
                                            _target ? "keeping the current target" : "still fetching"));
            return;
        }
        if ((_target && _target->ticket.sameIncarnation(*ticket)) || (_misfit && _misfit->sameIncarnation(*ticket)))
        {
            return;
        }
        auto const why = _target ? fmt::format("new epoch {} (was {}): the target restarted", ticket->epoch, _target->ticket.epoch)
                                 : fmt::format("epoch {}", ticket->epoch);
        establish(std::move(*ticket), why);
    }

    std::optional<Ticket> InitiatorService::fetchTicket(std::string& problem)
    {
        if (_activatedTicket)
        {
            _ticketOrigin = "IS-05 ext_mxl_target_ticket";
            auto ticket = _tickets.verifiedTicket(*_activatedTicket, problem);
            if (!ticket)
            {
                problem = fmt::format("the ticket of the IS-05 activation (ext_mxl_target_ticket): {}", problem);
            }
            return ticket;
        }
        if (_tickets.empty())
        {
            problem = "no 'ticket' is configured and the IS-05 activation carries none (ext_mxl_target_ticket null)";
            return std::nullopt;
        }
        auto ticket = _tickets.fetch();
        _ticketOrigin = _tickets.lastOrigin();
        problem = _tickets.lastFailure();
        return ticket;
    }

    std::string InitiatorService::unusable(Ticket const& ticket) const
    {
        if (ticket.provider != client::providerName(_interface.provider))
        {
            return fmt::format("it is for provider {}, this initiator uses {}", ticket.provider, client::providerName(_interface.provider));
        }
        if (bool const samples = _source->unit() == TransferUnit::Batch; ticket.carriesSamples != samples)
        {
            return fmt::format("it is for {}, flow {} is {}", kindOf(ticket.carriesSamples), _config.flowId, kindOf(samples));
        }
        mxlFabricsTargetInfo info = nullptr;
        if (auto const status = ::mxlFabricsTargetInfoFromString(ticket.json.c_str(), &info); status != MXL_STATUS_OK)
        {
            return fmt::format("the fabrics library cannot read it ({})", mxl::statusName(status));
        }
        client::OwnedTargetInfo const owned{info};
        return {};
    }

    void InitiatorService::reportTicketProblem(std::string const& problem)
    {
        // Once per distinct problem: a poll every second must not repeat the same warning. The set is bounded by clearing it.
        constexpr std::size_t remembered = 64;
        if (_reportedTicketProblems.size() >= remembered)
        {
            _reportedTicketProblems.clear();
        }
        if (_reportedTicketProblems.insert(problem).second)
        {
            log::warning("{}", problem);
        }
        if (!_target)
        {
            _metrics.setState("stale");
        }
    }

    bool InitiatorService::establish(Ticket ticket, std::string const& why)
    {
        bool const replacing = _target.has_value();
        // Re-adding the same incarnation keeps the ticket's history: how long it has failed, and whether that was said.
        auto const sameTicket = replacing && _target->ticket.sameIncarnation(ticket);
        auto const since = sameTicket ? _target->since : Clock::now();
        auto const reportedStale = sameTicket && _target->reportedStale;
        auto const connected = sameTicket && _target->connected;
        auto const delivered = sameTicket && _target->delivered;
        mxlFabricsTargetInfo info = nullptr;
        if (auto const status = ::mxlFabricsTargetInfoFromString(ticket.json.c_str(), &info); status != MXL_STATUS_OK)
        {
            reportTicketProblem(fmt::format("the ticket from '{}' (epoch {}) was rejected by the fabrics library: {}; {}", _ticketOrigin,
                                            ticket.epoch, mxl::statusName(status),
                                            replacing ? "keeping the current target" : "still fetching"));
            return false;
        }
        client::OwnedTargetInfo owned{info};
        // Make before break: another target is added while the current one keeps moving grains, and the current one is
        // removed only once the new one was taken. The same target is re-added after its removal.
        if (sameTicket)
        {
            dropTarget();
        }
        auto status = ::mxlFabricsInitiatorAddTarget(_initiator.get(), info);
        if (status == MXL_ERR_EXISTS && _target)
        {
            // The library keys targets by id. A ticket of the current target's id with other contents (one without an
            // epoch, as the SDK's are, re-issued at another address) can only take its place: break before make, and
            // the current target back should the library refuse the new one.
            auto retired = std::move(_target);
            _target.reset();
            ::mxlFabricsInitiatorRemoveTarget(_initiator.get(), retired->info.get());
            status = ::mxlFabricsInitiatorAddTarget(_initiator.get(), info);
            if (status != MXL_STATUS_OK && ::mxlFabricsInitiatorAddTarget(_initiator.get(), retired->info.get()) == MXL_STATUS_OK)
            {
                _target = std::move(retired);
            }
        }
        if (status != MXL_STATUS_OK)
        {
            reportTicketProblem(fmt::format("the target of the ticket from '{}' (epoch {}) does not fit flow {} (another provider or "
                                            "transport, or grains of another size, or audio of another channel count or sample "
                                            "format): {}; {}",
                                            _ticketOrigin, ticket.epoch, _config.flowId, mxl::statusName(status),
                                            _target ? "keeping the current target" : "still fetching"));
            return false;
        }
        dropTarget();
        _reportedTicketProblems.clear();
        auto const now = Clock::now();
        log::info("{} target from '{}': {}", replacing ? "re-establishing with the" : "adding the", _ticketOrigin, why);
        // Named for the watchdog's report should a write to it never return (a peer that cannot be spoken to).
        tools::setActivity(fmt::format("connecting to or writing to the {} target of epoch {} (ticket from '{}') in the fabrics library",
                                       ticket.provider, ticket.epoch, _ticketOrigin));
        if (replacing)
        {
            _metrics.reestablished();
        }
        _metrics.setEpoch(ticket.epoch);
        _metrics.setTransport(ticket.transport);
        _metrics.setState("connecting");
        _target = Established{std::move(ticket),
                              std::move(owned),
                              since,
                              MXL_FABRICS_TARGET_NOT_CONNECTED,
                              now,
                              connected,
                              delivered,
                              reportedStale,
                              {},
                              false};
        return true;
    }

    void InitiatorService::dropTarget()
    {
        if (!_target)
        {
            return;
        }
        // NOT_FOUND: the library already dropped it.
        ::mxlFabricsInitiatorRemoveTarget(_initiator.get(), _target->info.get());
        _target.reset();
    }

    void InitiatorService::refreshState(Clock::time_point now)
    {
        auto state = MXL_FABRICS_TARGET_NOT_CONNECTED;
        std::size_t reasonSize = 0;
        if (::mxlFabricsInitiatorGetTargetState(_initiator.get(), _target->info.get(), &state, nullptr, &reasonSize) != MXL_STATUS_OK ||
            state == _target->state)
        {
            return;
        }
        std::string reason(reasonSize, '\0');
        if (reasonSize > 0)
        {
            ::mxlFabricsInitiatorGetTargetState(_initiator.get(), _target->info.get(), &state, reason.data(), &reasonSize);
            reason.resize(reasonSize > 0 ? reasonSize - 1 : 0);
        }
        auto const previous = _target->state;
        _target->state = state;
        _target->stateSince = now;
        _target->reason = reason;
        if (state == MXL_FABRICS_TARGET_CONNECTED)
        {
            log::info("connected to the target (epoch {})", _target->ticket.epoch);
            _target->connected = true;
            _metrics.setState("active");
            _source->startAtPresent();
            _lastDelivery = now;
            _notifier.ready(_metrics.statusLine());
        }
        else if (previous == MXL_FABRICS_TARGET_CONNECTED)
        {
            log::warning("lost the target (epoch {}): {}; fetching the ticket again", _target->ticket.epoch,
                         reason.empty() ? stateName(state) : reason);
            _metrics.setState("reconnecting");
            _nextTicketPoll = now;
        }
        else
        {
            log::debug("target (epoch {}) {}{}", _target->ticket.epoch, stateName(state), reason.empty() ? "" : ": " + reason);
        }
    }

    void InitiatorService::awaitConnection(Clock::time_point now)
    {
        // The library connects (and reconnects, with its own back-off) during progress.
        ::mxlFabricsInitiatorMakeProgressBlocking(_initiator.get(), progressSliceMs);
        auto const waited = msSince(_target->stateSince, now);
        if (!_target->delivered && msSince(_target->since, now) >= _config.connectTimeout.count())
        {
            reportStale(now, fmt::format("no connection in {} ms ({})", msSince(_target->since, now), stateName(_target->state)));
        }
        // Before the first connection the library's own retries are all there is to do; a connection that was up and
        // stays lost is rebuilt from scratch.
        if (_target->connected && _target->state == MXL_FABRICS_TARGET_DISCONNECTED && waited >= _config.stallTimeout.count() &&
            _backoff.attemptDue(now))
        {
            auto ticket = _target->ticket;
            establish(std::move(ticket), fmt::format("the connection has been lost for {} ms", waited));
        }
    }

    void InitiatorService::reportStale(Clock::time_point now, std::string const& why)
    {
        if (_target->reportedStale)
        {
            return;
        }
        _target->reportedStale = true;
        _metrics.setState("stale");
        _nextTicketPoll = now;
        log::warning("the ticket from '{}' (epoch {}) looks stale: {}; the target restarted or is unreachable; still fetching",
                     _ticketOrigin, _target->ticket.epoch, why);
    }

    void InitiatorService::sendNext()
    {
        auto const read = _source->read();
        if (read.outcome == bridge::SourceCursor::Outcome::Gone)
        {
            _metrics.lost(read.skippedUnits);
            return;
        }
        if (read.outcome == bridge::SourceCursor::Outcome::NotDue)
        {
            // Nothing is due, so silence is no stall.
            _lastDelivery = Clock::now();
            ::mxlFabricsInitiatorMakeProgressNonBlocking(_initiator.get());
            return;
        }
        auto const delivered = transfer(read.unit);
        if (delivered)
        {
            _backoff.succeeded();
            _lastDelivery = Clock::now();
            _target->delivered = true;
            if (_target->reportedStale)
            {
                log::info("{} are being delivered on epoch {} again", _source->unit() == TransferUnit::Grain ? "grains" : "samples",
                          _target->ticket.epoch);
                _target->reportedStale = false;
                _metrics.setState("active");
            }
        }
        else
        {
            _metrics.lost(1);
            if (_target)
            {
                onUndelivered(Clock::now());
            }
        }
        _source->advance(delivered);
    }

    std::uint64_t InitiatorService::invalidatedTransfers() const
    {
        mxlFabricsTargetCounters counters{};
        ::mxlFabricsInitiatorGetTargetCounters(_initiator.get(), _target->info.get(), &counters);
        return counters.transfersInvalidated;
    }

    bool InitiatorService::transfer(bridge::SourceUnit const& unit)
    {
        auto const start = Clock::now();
        auto const invalidatedBefore = invalidatedTransfers();
        auto const posted = _source->post(_initiator.get(), unit);
        if (posted == MXL_ERR_INVALID_ARG && _source->unit() == TransferUnit::Batch)
        {
            // Every batch has the same length, so the next one would be refused too, each with an error line.
            refuseTicket(fmt::format("it refused samples up to {} (count {}): {} (the library's message above says why; give the "
                                     "target's flow a maxSyncBatchSizeHint of at least {})",
                                     unit.index, unit.samples, mxl::statusName(posted), unit.samples));
            return false;
        }
        if (posted != MXL_STATUS_OK && posted != MXL_ERR_NOT_READY && posted != MXL_ERR_INTERRUPTED)
        {
            auto const what = fmt::format("writing {} {} to the target (epoch {}) failed: {}",
                                          _source->unit() == TransferUnit::Grain ? "grain" : "samples up to", unit.index,
                                          _target->ticket.epoch, mxl::statusName(posted));
            if (_target->reportedWriteFailure)
            {
                log::debug("{}", what);
            }
            else
            {
                log::warning("{} (the library's message above says why; further failures on this ticket are logged at debug)", what);
                _target->reportedWriteFailure = true;
            }
            return false;
        }
        // A unit that takes longer than this is given up, so that a dead link costs at most this per unit.
        auto const deadline = start + std::min<Clock::duration>(_config.stallTimeout / 2, std::chrono::seconds{1});
        while (true)
        {
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator.get(), progressSliceMs);
            if (status == MXL_STATUS_OK && posted == MXL_STATUS_OK)
            {
                break;
            }
            refreshState(Clock::now());
            if (_target->state != MXL_FABRICS_TARGET_CONNECTED || posted != MXL_STATUS_OK || Clock::now() >= deadline)
            {
                return false;
            }
        }
        if (invalidatedTransfers() != invalidatedBefore)
        {
            // The source overwrote the unit before the target had read it: the target got it flagged invalid (grains) or
            // not at all (samples). The link is fine; the unit is lost.
            _metrics.lost(1);
            return true;
        }
        auto const done = Clock::now();
        // A batch is due at the timestamp of its last sample: it cannot be sent earlier.
        auto const dueNs = ::mxlIndexToTimestamp(&_flow.common.grainRate, unit.index);
        auto const nowNs = ::mxlGetTime();
        auto const sinceDue = std::chrono::nanoseconds{nowNs > dueNs ? nowNs - dueNs : 0};
        _metrics.moved(unit.bytes, unit.samples, done - start, sinceDue > _config.lateAfter);
        return true;
    }

    void InitiatorService::onUndelivered(Clock::time_point now)
    {
        auto const silence = msSince(_lastDelivery, now);
        if (!_target->delivered && msSince(_target->since, now) >= _config.connectTimeout.count())
        {
            // Connectionless providers "connect" to any ticket; a target that never took a unit is not there.
            reportStale(now, fmt::format("connected, but nothing was delivered in {} ms", msSince(_target->since, now)));
        }
        if (silence < _config.stallTimeout.count() || !_backoff.attemptDue(now))
        {
            return;
        }
        log::warning("stalled: the source is producing but nothing was delivered for {} ms", silence);
        _metrics.stalled();
        _lastDelivery = now;
        auto ticket = _target->ticket;
        establish(std::move(ticket), "stall");
        _nextTicketPoll = now;
    }

    void InitiatorService::refuseTicket(std::string const& why)
    {
        log::warning("the target of the ticket from '{}' (epoch {}) does not fit flow {}: {}; dropping it, still fetching", _ticketOrigin,
                     _target->ticket.epoch, _config.flowId, why);
        _misfit = _target->ticket;
        dropTarget();
        _metrics.setState("stale");
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
        std::vector<client::ServiceTargetStatus> targets;
        if (_target)
        {
            targets.push_back(
                client::ServiceTargetStatus{_target->ticket.epoch, stateName(_target->state), _target->reason,
                                            static_cast<std::uint64_t>(std::max<std::int64_t>(msSince(_target->stateSince, now), 0))});
        }
        _statusFile.publish(_metrics, std::move(targets));
    }

    void InitiatorService::disconnect()
    {
        dropTarget();
        // Let the graceful shutdown reach the target, so that it sees the initiator leave at once.
        auto const deadline = Clock::now() + std::chrono::seconds{1};
        while (Clock::now() < deadline)
        {
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator.get(), progressSliceMs);
            if (status == MXL_STATUS_OK || status == MXL_ERR_INTERRUPTED)
            {
                return;
            }
        }
    }
}
