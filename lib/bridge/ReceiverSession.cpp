#include "ReceiverSession.hpp"

#include "TargetRead.hpp"

#include <client/ClientError.hpp>
#include <client/TargetTicket.hpp>
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
        // Long enough to idle cheaply, short enough for the owner's signals, watchdog pings and status lines.
        constexpr std::uint16_t readTimeoutMs = 100;

        mxlFlowConfigInfo configOf(mxlFlowReader reader)
        {
            mxlFlowConfigInfo flow{};
            if (auto const status = ::mxlFlowReaderGetConfigInfo(reader, &flow); status != MXL_STATUS_OK)
            {
                client::runtimeFailure("cannot read the configuration of the received flow: {}", mxl::statusName(status));
            }
            return flow;
        }

        // The head a flow kept from an earlier writer (this target before a restart), which is not an arrival; 0 when unread.
        std::uint64_t headOf(mxlFlowReader reader)
        {
            mxlFlowRuntimeInfo runtime{};
            return ::mxlFlowReaderGetRuntimeInfo(reader, &runtime) == MXL_STATUS_OK ? runtime.headIndex : 0;
        }

        char const* unitsOf(TransferUnit unit)
        {
            return unit == TransferUnit::Grain ? "grains" : "samples";
        }
    }

    ReceiverSession::ReceiverSession(mxlFlowWriter writer, mxlFlowReader reader, Metrics& metrics, ReceiverSettings settings)
        : _writer{writer}
        , _reader{reader}
        , _flow{configOf(reader)}
        , _unit{transferUnitOf(_flow)}
        , _metrics{metrics}
        , _settings{std::move(settings)}
        , _tally{reader, _flow}
        , _head{headOf(reader)}
    {
    }

    ReceiverSession::ReceiverSession(mxlFabricsInstance fabrics, client::FabricsInterface interface, mxlFlowWriter writer,
                                     mxlFlowReader reader, Metrics& metrics, ReceiverSettings settings)
        : ReceiverSession{writer, reader, metrics, std::move(settings)}
    {
        _fabrics = fabrics;
        _interface = std::move(interface);
    }

    ReceiverSession::ReceiverSession(PathSettings const& paths, PathTargets::ChooseInterface const& choose, mxlFlowWriter writer,
                                     mxlFlowReader reader, Metrics& metrics, ReceiverSettings settings)
        : ReceiverSession{writer, reader, metrics, std::move(settings)}
    {
        _paths = std::make_unique<PathTargets>(
            paths, writer, _unit, [this](std::uint64_t last, std::uint64_t bytes, std::uint64_t samples) { account(last, bytes, samples); },
            choose);
    }

    std::vector<std::string> ReceiverSession::listen()
    {
        _flowing = false;
        _senderStoppedAt.reset();
        _tally.restart();
        if (_paths)
        {
            return _paths->listen();
        }
        _refusedByEarlierTargets += client::refusedInitiators(_target.get());
        _concurrentAtEarlierTargets += client::concurrentInitiators(_target.get());
        _target.reset();
        _target = std::make_unique<client::FabricsTarget>(_fabrics);
        auto const info = client::setUpTarget(_target->get(), _interface, _writer, _settings.setupOptions);
        return {client::ticketText(info.get())};
    }

    bool ReceiverSession::step(Clock::time_point now)
    {
        if (!receive())
        {
            _metrics.stalled();
            return true;
        }
        if (stalled(now))
        {
            _metrics.stalled();
            _metrics.reestablished();
            return true;
        }
        return false;
    }

    bool ReceiverSession::receive()
    {
        if (_paths)
        {
            bool arrivedAny = false;
            auto const status = _paths->receive(arrivedAny);
            _metrics.setLost(_paths->lost());
            if (status != MXL_STATUS_OK)
            {
                log::warn("reading the paths' {} failed ({}); rebuilding the path targets", unitsOf(_unit), mxl::statusName(status));
                return false;
            }
            if (!arrivedAny)
            {
                // Two targets are read in turn without waiting inside the library.
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
            return true;
        }
        auto const read = readTarget(_target->get(), _reader, _unit, _interface.blocking(), readTimeoutMs);
        switch (read.outcome)
        {
        case TargetRead::Outcome::Nothing:
            if (!_interface.blocking())
            {
                // Polling providers (shm) cannot wait inside the library.
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
            break;
        case TargetRead::Outcome::Failed:
            log::warn("reading {} failed ({}); rebuilding the target", unitsOf(_unit), mxl::statusName(read.status));
            return false;
        case TargetRead::Outcome::Lost:
            // An initiator rewrote the slot or the bounce-buffer entry before this loop read it (the library logged
            // which): that unit is gone, the target is fine.
            _metrics.lost(1);
            break;
        case TargetRead::Outcome::Arrived:
            arrived(read);
            break;
        }
        return true;
    }

    void ReceiverSession::arrived(TargetRead const& read)
    {
        auto const counted = _unit == TransferUnit::Grain ? _tally.grain(read.grain) : _tally.samples(read.samples);
        if (counted.lost != 0)
        {
            _metrics.lost(counted.lost);
        }
        if (counted.completed)
        {
            account(counted.completed->last, counted.completed->bytes, counted.completed->samples);
        }
    }

    void ReceiverSession::account(std::uint64_t last, std::uint64_t bytes, std::uint64_t samples)
    {
        auto const now = ::mxlGetTime();
        // A batch is due at the timestamp of its last sample: the initiator cannot send it earlier.
        auto const due = ::mxlIndexToTimestamp(&_flow.common.grainRate, last);
        auto const latency = std::chrono::nanoseconds{now > due ? now - due : 0};
        _metrics.moved(bytes, samples, latency, latency > _settings.lateAfter);
        // Indices an hour or more off this flow's timeline: the sender counts at another rate, or on another clock.
        constexpr std::uint64_t hourNs = 3'600'000'000'000;
        auto const offNs = now > due ? now - due : due - now;
        if (offNs >= hourNs && !_offTimelineReported)
        {
            _offTimelineReported = true;
            log::warn("{} {} arrived {} s {} its time on this flow's timeline ({}/{} per second): the sender's flow has another rate, or "
                      "its clock is not this one; readers see it as that far {}",
                      samples == 0 ? "grain" : "samples up to", last, offNs / 1'000'000'000, now > due ? "after" : "before",
                      _flow.common.grainRate.numerator, _flow.common.grainRate.denominator, now > due ? "in the past" : "in the future");
        }
        log::debug("{} {} arrived, {} bytes, {} us after its timestamp", samples == 0 ? "grain" : "samples up to", last, bytes,
                   latency.count() / 1000);
    }

    bool ReceiverSession::stalled(Clock::time_point now)
    {
        mxlFlowRuntimeInfo runtime{};
        if (::mxlFlowReaderGetRuntimeInfo(_reader, &runtime) == MXL_STATUS_OK && runtime.headIndex != _head)
        {
            // Health is what local readers see: the flow's head moving, whatever the counters say.
            _head = runtime.headIndex;
            _headAdvancedAt = now;
            // What was under way when the sender stopped lands within a stall timeout: no sign that units flow again.
            bool const trailing = _senderStoppedAt && now - *_senderStoppedAt < _settings.stallTimeout;
            if (!_flowing && !trailing)
            {
                log::info("{} are arriving (head {})", unitsOf(_unit), _head);
                _flowing = true;
                _senderStoppedAt.reset();
            }
        }
        auto const quiet = now - _headAdvancedAt;
        if (!_flowing || quiet < _settings.stallTimeout)
        {
            return false;
        }
        log::warn("stalled: the flow's head {} has not advanced for {} ms; rebuilding the target under a new epoch", _head,
                  std::chrono::duration_cast<std::chrono::milliseconds>(quiet).count());
        return true;
    }

    bool ReceiverSession::senderQuestionDue(Clock::time_point now) const noexcept
    {
        return _flowing && now - _headAdvancedAt >= _settings.stallTimeout / 4;
    }

    void ReceiverSession::refreshMetrics(Clock::time_point now, Clock::duration idleAfter)
    {
        if (_flowing)
        {
            _metrics.setState(now - _headAdvancedAt < idleAfter ? "active" : "idle");
        }
        if (_paths)
        {
            _metrics.setPathCounters(_paths->counters());
        }
        _metrics.setRefusedInitiators(_paths ? _paths->refusedInitiators()
                                             : _refusedByEarlierTargets + client::refusedInitiators(_target.get()));
        _metrics.setConcurrentInitiators(_paths ? _paths->concurrentInitiators()
                                                : _concurrentAtEarlierTargets + client::concurrentInitiators(_target.get()));
    }

    void ReceiverSession::senderStopped(Clock::time_point now)
    {
        _flowing = false;
        _senderStoppedAt = now;
        // It resumes at the present: the pause is not loss.
        _tally.expectNewStream(now + _settings.stallTimeout);
        _metrics.setState("waiting");
    }

    void ReceiverSession::finish()
    {
        if (_paths)
        {
            _paths->finish();
            _metrics.setLost(_paths->lost());
            _metrics.setPathCounters(_paths->counters());
        }
    }
}
