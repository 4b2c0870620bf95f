#include "fabrics/core/TargetEventPump.hpp"

#include "fabrics/core/ArrivalEvents.hpp"
#include "fabrics/core/Target.hpp"

#include <pthread.h>
#include <signal.h>

namespace mxl::fabrics
{
    namespace
    {
        // How long one read waits: the longest a stop waits for the thread.
        constexpr std::chrono::milliseconds readSlice{20};

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
                auto const event = readArrivalEvent(_target, readSlice);
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
}
