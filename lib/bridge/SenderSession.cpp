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
        constexpr std::uint16_t progressSliceMs = 50;
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

    std::int64_t SenderSession::msSince(Clock::time_point then, Clock::time_point now)
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(now - then).count();
    }

    bool SenderSession::takeRefetchWanted() noexcept
    {
        return std::exchange(_refetchWanted, false);
    }

    void SenderSession::step(Clock::time_point now)
    {
        if (_target)
        {
            refreshState(now);
        }
        superviseCandidate(now);
        if (!_target)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds{progressSliceMs});
            return;
        }
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
            onConnected(now);
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

    void SenderSession::onConnected(Clock::time_point now)
    {
        log::info("connected to the target (epoch {})", _target->ticket.epoch);
        _target->connected = true;
        _metrics.setState("active");
        // The units of an outage are not chased: gone, as the target will count them.
        _metrics.lost(_source->startAtPresent());
        _lastDelivery = now;
        _observer.connected();
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
        else if (_target->delivered && msSince(_lastDelivery, now) >= _settings.connectTimeout.count())
        {
            // A target that took units and went away for as long is as stale as one that never answered.
            reportStale(fmt::format("nothing delivered for {} ms, the connection lost ({})", msSince(_lastDelivery, now),
                                    client::targetStateName(_target->state)));
        }
        // Before the first connection the library's own retries are all there is to do; a connection that was up and
        // stays lost is rebuilt from scratch.
        if (_target->connected && _target->state == MXL_FABRICS_TARGET_DISCONNECTED && waited >= _settings.stallTimeout.count() &&
            _backoff.attemptDue(now))
        {
            auto ticket = _target->ticket;
            establish(std::move(ticket), _target->origin, fmt::format("the connection has been lost for {} ms", waited));
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
        log::warn("the ticket from '{}' (epoch {}) looks stale: {}; the target restarted or is unreachable; still fetching",
                  _target->origin, _target->ticket.epoch, why);
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

    std::uint32_t SenderSession::batchState(mxlFabricsBatch batch) const
    {
        mxlFabricsBatchSummary summary{};
        summary.structSize = sizeof summary;
        return ::mxlFabricsBatchGetSummary(_initiator, batch, &summary) == MXL_STATUS_OK ? summary.state
                                                                                         : std::uint32_t{MXL_FABRICS_TRANSFER_FAILED};
    }

    mxlStatus SenderSession::postAlone(SourceUnit const& unit, std::optional<client::FabricsBatch>& batch)
    {
        auto status = MXL_STATUS_OK;
        batch.emplace(_initiator, status);
        if (status == MXL_STATUS_OK)
        {
            status = _source->addTo(_initiator, batch->get(), _target->info.get(), unit);
        }
        return status == MXL_STATUS_OK ? ::mxlFabricsBatchSubmit(_initiator, batch->get()) : status;
    }

    bool SenderSession::transfer(SourceUnit const& unit)
    {
        auto const start = Clock::now();
        auto const invalidatedBefore = invalidatedTransfers();
        std::optional<client::FabricsBatch> alone;
        auto const posted = _candidate ? postAlone(unit, alone) : _source->post(_initiator, unit);
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
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator, alone ? 1 : progressSliceMs);
            if (alone && posted == MXL_STATUS_OK)
            {
                if (auto const state = batchState(alone->get()); state != MXL_FABRICS_TRANSFER_WAITING)
                {
                    if (state == MXL_FABRICS_TRANSFER_FAILED && invalidatedTransfers() == invalidatedBefore)
                    {
                        return false;
                    }
                    break;
                }
            }
            else if (status == MXL_STATUS_OK && posted == MXL_STATUS_OK)
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
        establish(std::move(ticket), _target->origin, "stall");
        _refetchWanted = true;
    }

    void SenderSession::refuseTicket(std::string const& why)
    {
        log::warn("the target of the ticket from '{}' (epoch {}) does not fit flow {}: {}; dropping it, still fetching", _target->origin,
                  _target->ticket.epoch, _settings.flowId, why);
        _misfit = _target->ticket;
        removeCurrent();
        _metrics.setState("stale");
    }

    std::vector<client::ServiceTargetStatus> SenderSession::targetStatus(Clock::time_point now) const
    {
        std::vector<client::ServiceTargetStatus> result;
        for (auto const* end : {&_target, &_candidate})
        {
            if (*end)
            {
                auto const& target = **end;
                result.push_back({target.ticket.epoch, client::targetStateName(target.state), target.reason,
                                  static_cast<std::uint64_t>(std::max<std::int64_t>(msSince(target.stateSince, now), 0))});
            }
        }
        return result;
    }

    void SenderSession::disconnect()
    {
        std::vector<mxlFabricsTargetInfo> targets;
        for (auto const* end : {&_target, &_candidate})
        {
            if (*end)
            {
                targets.push_back((*end)->info.get());
            }
        }
        client::leaveTargets(_initiator, targets, std::chrono::seconds{1});
        _target.reset();
        _candidate.reset();
    }
}
