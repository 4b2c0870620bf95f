#include "fabrics/core/InitiatorEvents.hpp"

#include "common/Status.hpp"

namespace mxl::fabrics
{
    InitiatorEvents::InitiatorEvents(mxlFabricsInitiator owner) noexcept
        : _owner{owner}
    {
    }

    int InitiatorEvents::start(std::size_t queueCapacity)
    {
        std::lock_guard lock{_mutex};
        if (_dispatcher)
        {
            fail(MXL_ERR_INVALID_STATE, "the initiator's events are started already (descriptor {})", _dispatcher->descriptor());
        }
        _dispatcher = std::make_shared<EventDispatcher<mxlFabricsInitiator>>(_owner, _handlers, queueCapacity, "fabrics initiator");
        return _dispatcher->descriptor();
    }

    void InitiatorEvents::stop()
    {
        refuseFromHandler();
        std::lock_guard lock{_mutex};
        _dispatcher.reset();
        _waiting.clear();
    }

    std::shared_ptr<EventDispatcher<mxlFabricsInitiator>> InitiatorEvents::started() const
    {
        std::lock_guard lock{_mutex};
        if (!_dispatcher)
        {
            fail(MXL_ERR_INVALID_STATE, "the initiator's events are not started (mxlFabricsInitiatorStartEvents)");
        }
        return _dispatcher;
    }

    std::size_t InitiatorEvents::dispatch(std::chrono::milliseconds timeout)
    {
        auto const dispatcher = started();
        auto const dispatched = dispatcher->dispatch(timeout);
        admitWaiting(*dispatcher);
        return dispatched;
    }

    bool InitiatorEvents::emit(mxlFabricsEvent const& event)
    {
        auto const checked = userEvent(event);
        return started()->emit(checked);
    }

    mxlFabricsEventCounters InitiatorEvents::counters() const
    {
        return started()->counters();
    }

    void InitiatorEvents::queue(mxlFabricsEvent const& event)
    {
        std::shared_ptr<EventDispatcher<mxlFabricsInitiator>> dispatcher;
        {
            std::lock_guard lock{_mutex};
            dispatcher = _dispatcher;
        }
        if (!dispatcher)
        {
            return;
        }
        admitWaiting(*dispatcher);
        // Behind the events waiting already, so that the order holds.
        if (!_waiting.empty() || !dispatcher->offer(event))
        {
            dispatcher->noteFullWait();
            _waiting.push_back(event);
        }
    }

    void InitiatorEvents::admitWaiting(EventDispatcher<mxlFabricsInitiator>& dispatcher)
    {
        while (!_waiting.empty() && dispatcher.offer(_waiting.front()))
        {
            _waiting.pop_front();
        }
    }

    void InitiatorEvents::refuseFromHandler() const
    {
        std::shared_ptr<EventDispatcher<mxlFabricsInitiator>> dispatcher;
        {
            std::lock_guard lock{_mutex};
            dispatcher = _dispatcher;
        }
        if (dispatcher && dispatcher->dispatchingOnThisThread())
        {
            fail(MXL_ERR_INVALID_STATE, "called from an event handler of this initiator: stopping its events, setting it up and "
                                        "destroying it are refused there (they would end the dispatch that runs the handler)");
        }
    }
}
