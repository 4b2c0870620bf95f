#include "SenderSession.hpp"

#include <client/FabricsHandles.hpp>
#include <client/InitiatorTargets.hpp>
#include <common/Log.hpp>
#include <common/StatusName.hpp>

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace mxl::bridge
{
    namespace
    {
        using Clock = SenderSession::Clock;

        constexpr std::uint16_t progressSliceMs = 50;

        std::int64_t msSince(Clock::time_point then, Clock::time_point now)
        {
            return std::chrono::duration_cast<std::chrono::milliseconds>(now - then).count();
        }

        char const* kindOf(bool samples)
        {
            return samples ? "an audio flow" : "a video or data flow";
        }
    }

    SenderSession::SenderSession(mxlFabricsInitiator initiator, SourceCursor& source, mxlFlowConfigInfo const& flow, Metrics& metrics,
                                 SenderSettings settings, Observer& observer)
        : _initiator{initiator}
        , _source{&source}
        , _unit{source.unit()}
        , _flow{flow}
        , _metrics{metrics}
        , _settings{std::move(settings)}
        , _observer{observer}
        , _backoff{_settings.backoffInitial, _settings.backoffMax}
    {
    }

    bool SenderSession::takeRefetchWanted() noexcept
    {
        return std::exchange(_refetchWanted, false);
    }

    std::string SenderSession::unusable(directory::Ticket const& ticket) const
    {
        if (ticket.provider != _settings.provider)
        {
            return fmt::format("it is for provider {}, this initiator uses {}", ticket.provider, _settings.provider);
        }
        if (bool const samples = _unit == TransferUnit::Batch; ticket.carriesSamples != samples)
        {
            return fmt::format("it is for {}, flow {} is {}", kindOf(ticket.carriesSamples), _settings.flowId, kindOf(samples));
        }
        mxlFabricsTargetInfo info = nullptr;
        if (auto const status = ::mxlFabricsTargetInfoFromString(ticket.json.c_str(), &info); status != MXL_STATUS_OK)
        {
            return fmt::format("the fabrics library cannot read it ({})", mxl::statusName(status));
        }
        client::OwnedTargetInfo const owned{info};
        return {};
    }

    void SenderSession::offer(directory::Ticket ticket, std::string const& origin)
    {
        if (auto const problem = unusable(ticket); !problem.empty())
        {
            reportTicketProblem(fmt::format("the ticket from '{}' (epoch {}) cannot be used: {}; {}", origin, ticket.epoch, problem,
                                            _target ? "keeping the current target" : "still fetching"));
            return;
        }
        if ((_target && _target->ticket.sameIncarnation(ticket)) || (_misfit && _misfit->sameIncarnation(ticket)))
        {
            return;
        }
        _ticketOrigin = origin;
        auto const why = _target ? fmt::format("new epoch {} (was {}): the target restarted", ticket.epoch, _target->ticket.epoch)
                                 : fmt::format("epoch {}", ticket.epoch);
        establish(std::move(ticket), why);
    }

    void SenderSession::reportTicketProblem(std::string const& problem)
    {
        // Once per distinct problem: a poll every second must not repeat the same warning. The set is bounded by clearing it.
        constexpr std::size_t remembered = 64;
        if (_reportedTicketProblems.size() >= remembered)
        {
            _reportedTicketProblems.clear();
        }
        if (_reportedTicketProblems.insert(problem).second)
        {
            log::warn("{}", problem);
        }
        if (!_target)
        {
            _metrics.setState("stale");
        }
    }

    bool SenderSession::establish(directory::Ticket ticket, std::string const& why)
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
        auto status = ::mxlFabricsInitiatorAddTarget(_initiator, info);
        if (status == MXL_ERR_EXISTS && _target)
        {
            // The library keys targets by id. A ticket of the current target's id with other contents (one without an
            // epoch, as the SDK's are, re-issued at another address) can only take its place: break before make, and
            // the current target back should the library refuse the new one.
            auto retired = std::move(_target);
            _target.reset();
            ::mxlFabricsInitiatorRemoveTarget(_initiator, retired->info.get());
            status = ::mxlFabricsInitiatorAddTarget(_initiator, info);
            if (status != MXL_STATUS_OK && ::mxlFabricsInitiatorAddTarget(_initiator, retired->info.get()) == MXL_STATUS_OK)
            {
                _target = std::move(retired);
            }
        }
        if (status != MXL_STATUS_OK)
        {
            if (status == MXL_ERR_INVALID_ARG)
            {
                // It will not fit at the next poll either: not added again until the ticket changes.
                _misfit = ticket;
            }
            reportTicketProblem(fmt::format("the target of the ticket from '{}' (epoch {}) does not fit flow {} (another provider or "
                                            "transport, or grains of another size, or audio of another channel count or sample "
                                            "format): {}; {}",
                                            _ticketOrigin, ticket.epoch, _settings.flowId, mxl::statusName(status),
                                            _target ? "keeping the current target" : "still fetching"));
            return false;
        }
        dropTarget();
        _reportedTicketProblems.clear();
        auto const now = Clock::now();
        log::info("{} target from '{}': {}", replacing ? "re-establishing with the" : "adding the", _ticketOrigin, why);
        _observer.establishing(
            fmt::format("connecting to or writing to the {} target of epoch {} (ticket from '{}') in the fabrics library", ticket.provider,
                        ticket.epoch, _ticketOrigin));
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

    void SenderSession::dropTarget()
    {
        if (!_target)
        {
            return;
        }
        // NOT_FOUND: the library already dropped it.
        ::mxlFabricsInitiatorRemoveTarget(_initiator, _target->info.get());
        _target.reset();
    }

    void SenderSession::reattach(mxlFabricsInitiator initiator, SourceCursor& source)
    {
        _initiator = initiator;
        _source = &source;
        _target.reset();
        _refetchWanted = true;
    }

    void SenderSession::step(Clock::time_point now)
    {
        if (!_target)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds{progressSliceMs});
            return;
        }
        refreshState(now);
        if (_target->state != MXL_FABRICS_TARGET_CONNECTED)
        {
            awaitConnection(now);
            return;
        }
        sendNext();
    }

    void SenderSession::refreshState(Clock::time_point now)
    {
        auto const current = client::targetState(_initiator, _target->info.get());
        if (!current || current->state == _target->state)
        {
            return;
        }
        auto const previous = _target->state;
        _target->state = current->state;
        _target->stateSince = now;
        _target->reason = current->reason;
        if (current->state == MXL_FABRICS_TARGET_CONNECTED)
        {
            log::info("connected to the target (epoch {})", _target->ticket.epoch);
            _target->connected = true;
            _metrics.setState("active");
            _source->startAtPresent();
            _lastDelivery = now;
            _observer.connected();
        }
        else if (previous == MXL_FABRICS_TARGET_CONNECTED)
        {
            log::warn("lost the target (epoch {}): {}; fetching the ticket again", _target->ticket.epoch,
                      current->reason.empty() ? client::targetStateName(current->state) : current->reason);
            _metrics.setState("reconnecting");
            _refetchWanted = true;
        }
        else
        {
            log::debug("target (epoch {}) {}{}", _target->ticket.epoch, client::targetStateName(current->state),
                       current->reason.empty() ? "" : ": " + current->reason);
        }
    }

    void SenderSession::awaitConnection(Clock::time_point now)
    {
        // The library connects (and reconnects, with its own back-off) during progress.
        ::mxlFabricsInitiatorMakeProgressBlocking(_initiator, progressSliceMs);
        auto const waited = msSince(_target->stateSince, now);
        if (!_target->delivered && msSince(_target->since, now) >= _settings.connectTimeout.count())
        {
            reportStale(fmt::format("no connection in {} ms ({})", msSince(_target->since, now), client::targetStateName(_target->state)));
        }
        // Before the first connection the library's own retries are all there is to do; a connection that was up and
        // stays lost is rebuilt from scratch.
        if (_target->connected && _target->state == MXL_FABRICS_TARGET_DISCONNECTED && waited >= _settings.stallTimeout.count() &&
            _backoff.attemptDue(now))
        {
            auto ticket = _target->ticket;
            establish(std::move(ticket), fmt::format("the connection has been lost for {} ms", waited));
        }
    }

    void SenderSession::reportStale(std::string const& why)
    {
        if (_target->reportedStale)
        {
            return;
        }
        _target->reportedStale = true;
        _metrics.setState("stale");
        _refetchWanted = true;
        log::warn("the ticket from '{}' (epoch {}) looks stale: {}; the target restarted or is unreachable; still fetching", _ticketOrigin,
                  _target->ticket.epoch, why);
    }

    void SenderSession::sendNext()
    {
        auto const read = _source->read();
        if (read.outcome == SourceCursor::Outcome::Gone)
        {
            _metrics.lost(read.skippedUnits);
            return;
        }
        if (read.outcome == SourceCursor::Outcome::NotDue)
        {
            // Nothing is due, so silence is no stall.
            _lastDelivery = Clock::now();
            ::mxlFabricsInitiatorMakeProgressNonBlocking(_initiator);
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
                log::info("{} are being delivered on epoch {} again", _unit == TransferUnit::Grain ? "grains" : "samples",
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

    std::uint64_t SenderSession::invalidatedTransfers() const
    {
        return client::targetCounters(_initiator, _target->info.get()).transfersInvalidated;
    }

    bool SenderSession::transfer(SourceUnit const& unit)
    {
        auto const start = Clock::now();
        auto const invalidatedBefore = invalidatedTransfers();
        auto const posted = _source->post(_initiator, unit);
        if (posted == MXL_ERR_INVALID_ARG && _unit == TransferUnit::Batch)
        {
            // Every batch has the same length, so the next one would be refused too, each with an error line.
            refuseTicket(fmt::format("it refused samples up to {} (count {}): {} (the library's message above says why; give the "
                                     "target's flow a maxSyncBatchSizeHint of at least {})",
                                     unit.index, unit.samples, mxl::statusName(posted), unit.samples));
            return false;
        }
        if (posted != MXL_STATUS_OK && posted != MXL_ERR_NOT_READY && posted != MXL_ERR_INTERRUPTED)
        {
            if (!_target->reportedWriteFailure)
            {
                log::warn("writing {} {} to the target (epoch {}) failed: {} (the library's message above says why; further failures on "
                          "this ticket are logged at debug)",
                          _unit == TransferUnit::Grain ? "grain" : "samples up to", unit.index, _target->ticket.epoch,
                          mxl::statusName(posted));
                _target->reportedWriteFailure = true;
            }
            else
            {
                log::debug("writing {} {} to the target (epoch {}) failed: {}", _unit == TransferUnit::Grain ? "grain" : "samples up to",
                           unit.index, _target->ticket.epoch, mxl::statusName(posted));
            }
            return false;
        }
        // A unit that takes longer than this is given up, so that a dead link costs at most this per unit.
        auto const deadline = start + std::min<Clock::duration>(_settings.stallTimeout / 2, std::chrono::seconds{1});
        while (true)
        {
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator, progressSliceMs);
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
        _metrics.moved(unit.bytes, unit.samples, done - start, sinceDue > _settings.lateAfter);
        return true;
    }

    void SenderSession::onUndelivered(Clock::time_point now)
    {
        auto const silence = msSince(_lastDelivery, now);
        if (!_target->delivered && msSince(_target->since, now) >= _settings.connectTimeout.count())
        {
            // Connectionless providers "connect" to any ticket; a target that never took a unit is not there.
            reportStale(fmt::format("connected, but nothing was delivered in {} ms", msSince(_target->since, now)));
        }
        if (silence < _settings.stallTimeout.count() || !_backoff.attemptDue(now))
        {
            return;
        }
        log::warn("stalled: the source is producing but nothing was delivered for {} ms", silence);
        _metrics.stalled();
        _lastDelivery = now;
        auto ticket = _target->ticket;
        establish(std::move(ticket), "stall");
        _refetchWanted = true;
    }

    void SenderSession::refuseTicket(std::string const& why)
    {
        log::warn("the target of the ticket from '{}' (epoch {}) does not fit flow {}: {}; dropping it, still fetching", _ticketOrigin,
                  _target->ticket.epoch, _settings.flowId, why);
        _misfit = _target->ticket;
        dropTarget();
        _metrics.setState("stale");
    }

    std::vector<client::ServiceTargetStatus> SenderSession::targetStatus(Clock::time_point now) const
    {
        if (!_target)
        {
            return {};
        }
        return {client::ServiceTargetStatus{_target->ticket.epoch, client::targetStateName(_target->state), _target->reason,
                                            static_cast<std::uint64_t>(std::max<std::int64_t>(msSince(_target->stateSince, now), 0))}};
    }

    void SenderSession::disconnect()
    {
        mxlFabricsTargetInfo const target = _target ? _target->info.get() : nullptr;
        client::leaveTargets(_initiator, {&target, _target ? 1U : 0U}, std::chrono::seconds{1});
        _target.reset();
    }
}
