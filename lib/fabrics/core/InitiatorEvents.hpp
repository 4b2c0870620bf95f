// The events of one initiator (include/mxl/fabrics_events.h): its handlers, which it keeps across setup, and while
// events are started, the queue. The initiator has no library thread: its progress calls queue the events, on the
// application's thread, so a full queue cannot be waited on; what does not fit waits here, in order, until a dispatch
// made room.
#pragma once

#include "fabrics/core/StartableEvents.hpp"

#include <chrono>
#include <cstddef>
#include <deque>

namespace mxl::fabrics
{
    class InitiatorEvents final : public StartableEvents<mxlFabricsInitiator>
    {
    public:
        // `owner` is what handlers are given.
        explicit InitiatorEvents(mxlFabricsInitiator owner) noexcept;

        // Returns the queue's descriptor.
        int start(std::size_t queueCapacity);
        // Nothing to do when not started; refused from a handler.
        void stop();
        [[nodiscard]] std::size_t dispatch(std::chrono::milliseconds timeout);

        // A library event, from the thread that drives the initiator; dropped while events are not started.
        void queue(mxlFabricsEvent const& event);

    private:
        // Library events that found the queue full, oldest first; only the driving thread touches them.
        std::deque<mxlFabricsEvent> _waiting;

        // Moves waiting events into the queue while it has room.
        void admitWaiting(EventDispatcher<mxlFabricsInitiator>& dispatcher);
    };
}
