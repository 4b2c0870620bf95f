#include "FanOutSession.hpp"

#include <client/ClientError.hpp>
#include <client/InitiatorTargets.hpp>
#include <common/Log.hpp>

#include <fmt/format.h>

#include <thread>

namespace mxl::bridge
{
    namespace
    {
        using Clock = FanOutSession::Clock;

        // A transfer that has not completed after this long is given up (counted lost); the next unit goes on.
        constexpr auto transferTimeout = std::chrono::seconds{2};
        constexpr auto disconnectTimeout = std::chrono::seconds{2};
        constexpr std::uint16_t progressTimeoutMs = 100;
        // How often target states are looked at: a lost target shows within this time.
        constexpr auto stateCheckInterval = std::chrono::milliseconds{200};

        // "grain 12 slices [0, 1080)", "samples up to 4800 (count 480)": for log lines and errors, formatted only for them.
        std::string describeUnit(TransferUnit kind, SourceUnit const& unit)
        {
            return kind == TransferUnit::Grain ? fmt::format("grain {} slices [{}, {})", unit.index, unit.startSlice, unit.endSlice)
                                               : fmt::format("samples up to {} (count {})", unit.index, unit.samples);
        }

        std::string describeState(mxlFabricsTargetState state, std::string const& reason)
        {
            return state == MXL_FABRICS_TARGET_DISCONNECTED ? "disconnected: " + reason : client::targetStateName(state);
        }
    }

    FanOutSession::FanOutSession(mxlFabricsInitiator initiator, std::vector<mxlFabricsTargetInfo> targets,
                                 std::chrono::duration<double> connectTimeout, std::string const& flowId)
        : _initiator{initiator}
        , _connectTimeout{connectTimeout}
    {
        for (std::size_t i = 0; i < targets.size(); ++i)
        {
            if (auto const status = ::mxlFabricsInitiatorAddTarget(_initiator, targets[i]); status != MXL_STATUS_OK)
            {
                client::badInput("target info {} does not fit flow '{}': a different backend, provider or transport, or grains of another "
                                 "size or layout (mxlStatus {}; the library's message above says which)",
                                 i + 1, flowId, static_cast<int>(status));
            }
            _targets.push_back({targets[i], MXL_FABRICS_TARGET_NOT_CONNECTED, {}, false, 0});
        }
    }

    void FanOutSession::run(SourceCursor& source, Observer& observer)
    {
        _sourceOfRun = &source;
        _observerOfRun = &observer;
        if (connect())
        {
            send();
        }
        refreshTargetStates();
        disconnect();
    }

    bool FanOutSession::connect()
    {
        auto const deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(_connectTimeout);
        while (!_observerOfRun->stopRequested())
        {
            // OK once every target accepted: a target that never answers keeps this NOT_READY.
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator, progressTimeoutMs);
            refreshTargetStates();
            if (status == MXL_STATUS_OK)
            {
                _observerOfRun->connected(_targets.size());
                _lastDelivery = Clock::now();
                return true;
            }
            if (status != MXL_ERR_NOT_READY && status != MXL_ERR_INTERRUPTED)
            {
                client::runtimeFailure("connecting to the targets failed (mxlStatus {})", static_cast<int>(status));
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
                client::badInput(
                    "target(s) {} did not accept a connection within {:.1f} s: the ticket is stale, or the target is not running or "
                    "not reachable",
                    missing, _connectTimeout.count());
            }
        }
        return false;
    }

    std::size_t FanOutSession::refreshTargetStates()
    {
        std::size_t connected = 0;
        std::vector<std::uint64_t> skipped;
        std::vector<std::uint64_t> invalidated;
        for (std::size_t i = 0; i < _targets.size(); ++i)
        {
            auto& target = _targets[i];
            auto const counters = client::targetCounters(_initiator, target.info);
            skipped.push_back(counters.transfersSkipped);
            invalidated.push_back(counters.transfersInvalidated);
            if ((counters.lagging != 0) != target.lagging)
            {
                target.lagging = counters.lagging != 0;
                _observerOfRun->targetLagging(i, target.lagging, counters.transfersSkipped);
            }
            auto const current = client::targetState(_initiator, target.info);
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
                _observerOfRun->targetConnected(i);
            }
            else if (current->state == MXL_FABRICS_TARGET_DISCONNECTED)
            {
                target.reason = current->reason;
                _observerOfRun->targetDisconnected(i, target.reason);
            }
        }
        _observerOfRun->targetCounts(skipped, invalidated);
        _connectedTargets = connected;
        _nextStateCheck = Clock::now() + stateCheckInterval;
        return connected;
    }

    bool FanOutSession::awaitReconnection()
    {
        auto const deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(_connectTimeout);
        while (!_observerOfRun->stopRequested())
        {
            // The library reconnects lost targets in the background, during progress; with nothing in flight progress
            // returns at once, hence the sleep.
            ::mxlFabricsInitiatorMakeProgressNonBlocking(_initiator);
            if (refreshTargetStates() > 0)
            {
                return true;
            }
            if (Clock::now() >= deadline)
            {
                client::runtimeFailure("every target has been disconnected for {:.1f} s", _connectTimeout.count());
            }
            std::this_thread::sleep_for(stateCheckInterval);
        }
        return false;
    }

    bool FanOutSession::transfer(SourceUnit const& unit)
    {
        auto const start = Clock::now();
        // The library fans a transfer out to every connected target and reports the first target that failed; the
        // others already have it, so a failed post is never repeated (that would send them the unit twice).
        auto const posted = _sourceOfRun->post(_initiator, unit);
        // Lagging targets are skipped without an error: with all of them skipped the transfer went nowhere.
        bool const everyTargetSkipped = updateSkips();
        if (posted == MXL_ERR_INTERRUPTED)
        {
            // A target was lost while posting (reported once; the library reconnects it in the background).
            refreshTargetStates();
        }
        else if (posted != MXL_STATUS_OK && posted != MXL_ERR_NOT_READY)
        {
            client::runtimeFailure("posting {} failed (mxlStatus {})", describeUnit(_sourceOfRun->unit(), unit), static_cast<int>(posted));
        }
        // NOT_READY: a target's transmit queue stayed full (the library retried); with one target nothing went out.
        bool const reachedNone = _connectedTargets == 0 || everyTargetSkipped || (posted == MXL_ERR_NOT_READY && _connectedTargets == 1);

        auto const deadline = start + transferTimeout;
        while (true)
        {
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(_initiator, progressTimeoutMs);
            if (status == MXL_STATUS_OK)
            {
                break;
            }
            // A signal (keep finishing this unit) or a target lost, reported once; the others still count.
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
                client::runtimeFailure("completing {} failed (mxlStatus {})", describeUnit(_sourceOfRun->unit(), unit),
                                       static_cast<int>(status));
            }
            if (Clock::now() >= deadline)
            {
                _observerOfRun->timedOut(describeUnit(_sourceOfRun->unit(), unit), transferTimeout);
                return false;
            }
        }
        if (reachedNone)
        {
            return false;
        }
        _lastDelivery = Clock::now();
        _everDelivered = true;
        _observerOfRun->delivered(unit, _lastDelivery - start);
        return true;
    }

    bool FanOutSession::updateSkips()
    {
        bool everySkipped = true;
        for (auto& target : _targets)
        {
            auto const counters = client::targetCounters(_initiator, target.info);
            everySkipped = everySkipped && counters.transfersSkipped > target.skipped;
            target.skipped = counters.transfersSkipped;
        }
        return everySkipped;
    }

    void FanOutSession::checkDeliveries() const
    {
        auto const silence = std::chrono::duration<double>(Clock::now() - _lastDelivery);
        if (silence < _connectTimeout)
        {
            return;
        }
        // Connectionless providers (shm) "connect" to any ticket; a target that never took a unit is not there.
        if (!_everDelivered)
        {
            client::badInput("the target(s) took no grain in {:.1f} s after connecting: the ticket is stale, or the target is not running",
                             silence.count());
        }
        client::runtimeFailure("no grain could be delivered to any target for {:.1f} s", silence.count());
    }

    // Pacing comes from the source: a unit is read once its writer committed it.
    void FanOutSession::send()
    {
        static_cast<void>(_sourceOfRun->startAtPresent());
        while (!_observerOfRun->stopRequested())
        {
            if (_observerOfRun->reportDue())
            {
                // The report's per-target counts are exact as of its printing.
                refreshTargetStates();
                _observerOfRun->report();
            }
            if (Clock::now() >= _nextStateCheck)
            {
                refreshTargetStates();
            }
            if (_connectedTargets == 0)
            {
                if (!awaitReconnection())
                {
                    break;
                }
                // The units of the outage are gone; carry on with the present.
                _observerOfRun->lost(_sourceOfRun->startAtPresent());
                continue;
            }
            auto const read = _sourceOfRun->read();
            if (read.outcome == SourceCursor::Outcome::Gone)
            {
                log::debug("the source ring moved past the cursor; {} unit(s) skipped", read.skippedUnits);
                _observerOfRun->fellBehind();
                _observerOfRun->lost(read.skippedUnits);
                continue;
            }
            if (read.outcome == SourceCursor::Outcome::NotDue)
            {
                // The source is late or stopped; keep the connections serviced while waiting for it.
                ::mxlFabricsInitiatorMakeProgressNonBlocking(_initiator);
                continue;
            }
            bool const sent = transfer(read.unit);
            log::debug("{}{}", describeUnit(_sourceOfRun->unit(), read.unit), sent ? "" : " not delivered");
            if (!sent)
            {
                checkDeliveries();
                _observerOfRun->lost(1);
            }
            _sourceOfRun->advance(sent);
        }
    }

    void FanOutSession::disconnect()
    {
        std::vector<mxlFabricsTargetInfo> targets;
        for (auto const& target : _targets)
        {
            targets.push_back(target.info);
        }
        _observerOfRun->disconnected(client::leaveTargets(_initiator, targets, disconnectTimeout), disconnectTimeout);
    }
}
