// The events of one initiator (include/mxl/fabrics_events.h): its handlers, which it keeps across setup, and while
// events are started, the queue. The initiator has no library thread: its progress calls queue the events, on the
// application's thread, so a full queue cannot be waited on; what does not fit waits here, in order, until a dispatch
// made room.
#pragma once

#include "fabrics/core/EventDispatcher.hpp"
#include "fabrics/core/EventHandlers.hpp"

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>

namespace mxl::fabrics
{
    class InitiatorEvents
    {
    public:
        // `owner` is what handlers are given.
        explicit InitiatorEvents(mxlFabricsInitiator owner) noexcept;

        InitiatorEvents(InitiatorEvents const&) = delete;
        InitiatorEvents& operator=(InitiatorEvents const&) = delete;

        [[nodiscard]] EventHandlers<mxlFabricsInitiator>& handlers() noexcept
        {
            return _handlers;
        }

        // Returns the queue's descriptor.
        int start(std::size_t queueCapacity);
        // Nothing to do when not started; refused from a handler.
        void stop();
        [[nodiscard]] std::size_t dispatch(std::chrono::milliseconds timeout);
        // False when the queue is full.
        [[nodiscard]] bool emit(mxlFabricsEvent const& event);
        [[nodiscard]] mxlFabricsEventCounters counters() const;

        // A library event, from the thread that drives the initiator; dropped while events are not started.
        void queue(mxlFabricsEvent const& event);

        // Fails inside a handler, for the calls that would end the dispatch it runs in (stop, setup, destroy).
        void refuseFromHandler() const;

    private:
        mxlFabricsInitiator _owner;
        EventHandlers<mxlFabricsInitiator> _handlers;
        mutable std::mutex _mutex;
        // Shared with emitters on other threads, so that a stop cannot free the queue under them.
        std::shared_ptr<EventDispatcher<mxlFabricsInitiator>> _dispatcher;
        // Library events that found the queue full, oldest first; only the driving thread touches them.
        std::deque<mxlFabricsEvent> _waiting;

        // Fails when not started.
        [[nodiscard]] std::shared_ptr<EventDispatcher<mxlFabricsInitiator>> started() const;
        // Moves waiting events into the queue while it has room.
        void admitWaiting(EventDispatcher<mxlFabricsInitiator>& dispatcher);
    };
}
