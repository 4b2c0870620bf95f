#include "fabrics/core/TargetEventPump.hpp"

#include "fabrics/core/Interrupted.hpp"
#include "fabrics/core/Target.hpp"

#include <pthread.h>
#include <signal.h>

#include <string_view>

namespace mxl::fabrics
{
    namespace
    {
        // How long one read waits: the longest a stop waits for the thread.
        constexpr std::chrono::milliseconds readSlice{20};

        mxlFabricsEvent eventOf(mxlFabricsEventType type)
        {
            mxlFabricsEvent event{};
            event.structSize = sizeof(event);
            event.type = type;
            return event;
        }

        // Cut to fit, always NUL-terminated.
        void copyText(std::string_view text, char (&out)[MXL_FABRICS_EVENT_TEXT_SIZE])
        {
            out[text.copy(out, sizeof(out) - 1)] = '\0';
        }

        mxlFabricsEvent grainEvent(GrainArrival const& arrival)
        {
            auto event = eventOf(MXL_FABRICS_EVENT_GRAIN_ARRIVED);
            event.grain = {arrival.index, arrival.validSlices, arrival.totalSlices, arrival.flags};
            return event;
        }

        mxlFabricsEvent samplesEvent(SampleArrival const& arrival)
        {
            auto event = eventOf(MXL_FABRICS_EVENT_SAMPLES_ARRIVED);
            event.samples = {arrival.headIndex, arrival.count};
            return event;
        }

        mxlFabricsEvent problemEvent(mxlFabricsEventType type, mxlStatus status, std::string_view text)
        {
            auto event = eventOf(type);
            event.problem.status = status;
            copyText(text, event.problem.text);
            return event;
        }

        mxlFabricsEvent connectionEvent(ConnectionChange const& change)
        {
            auto event = eventOf(change.connected ? MXL_FABRICS_EVENT_INITIATOR_CONNECTED : MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED);
            event.connection.connectionId = change.connectionId;
            copyText(change.reason, event.connection.reason);
            return event;
        }

        // Signals are the application's: its poll() must return EINTR for them, so the thread starts with all blocked.
        class SignalsBlocked
        {
        public:
            SignalsBlocked()
            {
                sigset_t all;
                ::sigfillset(&all);
                ::pthread_sigmask(SIG_BLOCK, &all, &_previous);
            }

            ~SignalsBlocked()
            {
                ::pthread_sigmask(SIG_SETMASK, &_previous, nullptr);
            }

            SignalsBlocked(SignalsBlocked const&) = delete;
            SignalsBlocked& operator=(SignalsBlocked const&) = delete;

        private:
            sigset_t _previous{};
        };
    }

    TargetEventPump::TargetEventPump(Target& target, std::shared_ptr<EventDispatcher<mxlFabricsTarget>> dispatcher)
        : _target{target}
        , _dispatcher{std::move(dispatcher)}
    {
        SignalsBlocked const inherited;
        _thread = std::jthread{[this](std::stop_token const& stop) { run(stop); }};
    }

    TargetEventPump::~TargetEventPump()
    {
        _thread.request_stop();
        _thread.join();
        _target.transport->observeConnections({});
    }

    void TargetEventPump::run(std::stop_token const& stop) noexcept
    {
        try
        {
            _target.transport->observeConnections([this, stop](ConnectionChange const& change)
                                                  { static_cast<void>(_dispatcher->post(connectionEvent(change), stop)); });
            while (!stop.stop_requested())
            {
                auto const event = next();
                if (event && (!_dispatcher->post(*event, stop) || event->type == MXL_FABRICS_EVENT_TARGET_FAILED))
                {
                    return;
                }
            }
        }
        catch (std::exception const& e)
        {
            // Only the queue itself can fail here (its descriptor refused a write): nothing is left to report to.
            log::error("fabrics target {}: its event thread stopped: {}", _target.ticket().id, e.what());
        }
    }

    std::optional<mxlFabricsEvent> TargetEventPump::next()
    {
        auto const name = _target.ticket().id;
        try
        {
            if (_target.ingress)
            {
                auto const arrival = _target.readGrain(readSlice);
                return arrival ? std::optional{grainEvent(*arrival)} : std::nullopt;
            }
            auto const arrival = _target.readSamples(readSlice);
            return arrival ? std::optional{samplesEvent(*arrival)} : std::nullopt;
        }
        catch (Interrupted const&)
        {
            // A process stopped and continued (SIGSTOP, SIGCONT) sees EINTR from blocking waits even with every signal
            // blocked: nothing happened, read again.
            return std::nullopt;
        }
        catch (Error const& e)
        {
            if (e.status() == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                log::warn("fabrics target {}: {}", name, e.what());
                return problemEvent(MXL_FABRICS_EVENT_ARRIVAL_LOST, e.status(), e.what());
            }
            log::error("fabrics target {}: reading arrivals failed, its events stop: {}", name, e.what());
            return problemEvent(MXL_FABRICS_EVENT_TARGET_FAILED, e.status(), e.what());
        }
        catch (std::exception const& e)
        {
            log::error("fabrics target {}: reading arrivals failed, its events stop: {}", name, e.what());
            return problemEvent(MXL_FABRICS_EVENT_TARGET_FAILED, MXL_ERR_UNKNOWN, e.what());
        }
    }
}
