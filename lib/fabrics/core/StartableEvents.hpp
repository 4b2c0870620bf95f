// What the events of a target and of an initiator have alike (include/mxl/fabrics_events.h): the handlers, kept across
// stops and setups, and while events are started the queue, shared with emitters on other threads so that a stop
// cannot free it under them. TargetEvents and InitiatorEvents add how events are started and what feeds the queue.
#pragma once

#include "fabrics/core/EventDispatcher.hpp"
#include "fabrics/core/EventHandlers.hpp"

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace mxl::fabrics
{
    template <typename Owner>
    class StartableEvents
    {
    public:
        // `owner` is what handlers are given; `role` ("target" or "initiator") names it in messages.
        StartableEvents(Owner owner, char const* role) noexcept;

        StartableEvents(StartableEvents const&) = delete;
        StartableEvents& operator=(StartableEvents const&) = delete;

        [[nodiscard]] EventHandlers<Owner>& handlers() noexcept
        {
            return _handlers;
        }

        // False when the queue is full.
        [[nodiscard]] bool emit(mxlFabricsEvent const& event);
        [[nodiscard]] mxlFabricsEventCounters counters() const;

        // Fails inside a handler, for the calls that would end the dispatch it runs in (stop, setup, destroy).
        void refuseFromHandler() const;

    protected:
        ~StartableEvents() = default;

        // Under _mutex: fails when started already, else makes the queue (not yet in _dispatcher).
        [[nodiscard]] std::shared_ptr<EventDispatcher<Owner>> newDispatcher(std::size_t queueCapacity, std::string name) const;
        // Null when not started.
        [[nodiscard]] std::shared_ptr<EventDispatcher<Owner>> current() const;
        // Fails when not started.
        [[nodiscard]] std::shared_ptr<EventDispatcher<Owner>> started() const;

        Owner const _owner;
        char const* const _role;
        EventHandlers<Owner> _handlers;
        mutable std::mutex _mutex;
        std::shared_ptr<EventDispatcher<Owner>> _dispatcher;
    };

    extern template class StartableEvents<mxlFabricsTarget>;
    extern template class StartableEvents<mxlFabricsInitiator>;
}
