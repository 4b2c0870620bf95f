#include "fabrics/core/InitiatorEvents.hpp"

namespace mxl::fabrics
{
    InitiatorEvents::InitiatorEvents(mxlFabricsInitiator owner) noexcept
        : StartableEvents{owner, "initiator"}
    {
    }

    int InitiatorEvents::start(std::size_t queueCapacity)
    {
        std::lock_guard lock{_mutex};
        _dispatcher = newDispatcher(queueCapacity, "fabrics initiator");
        return _dispatcher->descriptor();
    }

    void InitiatorEvents::stop()
    {
        refuseFromHandler();
        std::lock_guard lock{_mutex};
        _dispatcher.reset();
        _waiting.clear();
    }

    std::size_t InitiatorEvents::dispatch(std::chrono::milliseconds timeout)
    {
        auto const dispatcher = started();
        auto const dispatched = dispatcher->dispatch(timeout);
        admitWaiting(*dispatcher);
        return dispatched;
    }

    void InitiatorEvents::queue(mxlFabricsEvent const& event)
    {
        auto const dispatcher = current();
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
}
