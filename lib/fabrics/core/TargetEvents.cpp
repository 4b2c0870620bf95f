#include "fabrics/core/TargetEvents.hpp"

#include "common/Status.hpp"
#include "fabrics/core/Target.hpp"

#include <cstdlib>
#include <string_view>

namespace mxl::fabrics
{
    namespace
    {
        // MXL_FABRICS_TARGET_EVENT_THREAD=1: a library thread reads the arrivals even where the application's dispatch
        // could (for comparing the two).
        bool eventThreadAsked()
        {
            auto const* knob = std::getenv("MXL_FABRICS_TARGET_EVENT_THREAD");
            return knob != nullptr && std::string_view{knob} == "1";
        }
    }

    TargetEvents::TargetEvents(mxlFabricsTarget owner) noexcept
        : StartableEvents{owner, "target"}
    {
    }

    TargetEvents::~TargetEvents()
    {
        halt();
    }

    int TargetEvents::start(Target& target, std::size_t queueCapacity)
    {
        if (!target.transport)
        {
            fail(MXL_ERR_INVALID_STATE, "the target is not set up: set it up before starting its events");
        }
        std::lock_guard lock{_mutex};
        auto dispatcher = newDispatcher(queueCapacity, fmt::format("fabrics target {}", target.ticket().id));
        announceNewTicket(*dispatcher, target.ticket());
        if (target.transport->waitDescriptor() >= 0 && !eventThreadAsked())
        {
            _inline = std::make_shared<InlineArrivals>(target, dispatcher);
            _dispatcher = std::move(dispatcher);
            return _inline->descriptor();
        }
        _pump = std::make_unique<TargetEventPump>(target, dispatcher);
        _dispatcher = std::move(dispatcher);
        return _dispatcher->descriptor();
    }

    void TargetEvents::announceNewTicket(EventDispatcher<mxlFabricsTarget>& dispatcher, TargetInfo const& ticket)
    {
        auto const now = std::pair{ticket.id, ticket.epoch};
        if (_startedTicket && *_startedTicket != now)
        {
            mxlFabricsEvent event{};
            event.structSize = sizeof(event);
            event.type = MXL_FABRICS_EVENT_EPOCH_CHANGED;
            event.epoch = {now.first, now.second, _startedTicket->first, _startedTicket->second};
            // The queue is new and empty, so the offer cannot be refused.
            static_cast<void>(dispatcher.offer(event));
        }
        _startedTicket = now;
    }

    void TargetEvents::stop()
    {
        refuseFromHandler();
        halt();
    }

    void TargetEvents::halt() noexcept
    {
        std::unique_ptr<TargetEventPump> pump;
        std::shared_ptr<InlineArrivals> reading;
        {
            std::lock_guard lock{_mutex};
            pump = std::move(_pump);
            reading = std::move(_inline);
            _dispatcher.reset();
        }
        if (reading)
        {
            // Once a dispatch on another thread returned: nothing reads the target afterwards.
            reading->halt();
        }
        // Joined outside the lock, so that emitters on other threads are not held for the up to 20 ms the thread takes to
        // see the stop.
        pump.reset();
    }

    std::size_t TargetEvents::dispatch(std::chrono::milliseconds timeout)
    {
        std::shared_ptr<InlineArrivals> reading;
        {
            std::lock_guard lock{_mutex};
            reading = _inline;
        }
        return reading ? reading->dispatch(timeout) : started()->dispatch(timeout);
    }

    void TargetEvents::refuseReadWhileStarted() const
    {
        if (current())
        {
            fail(MXL_ERR_INVALID_STATE, "the target's events are started, so they read its arrivals: wait on the event descriptor and call "
                                        "mxlFabricsTargetDispatchEvents, or call mxlFabricsTargetStopEvents before reading");
        }
    }
}
