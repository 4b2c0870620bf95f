// The queue between the producers of a target's or an initiator's events (a target's library thread, an initiator's
// progress calls, and emitters) and the application thread that dispatches them, with an eventfd that is readable
// exactly while the queue holds events. Bounded without loss: a target's library thread waits for room, an initiator
// keeps what does not fit (InitiatorEvents) instead of dropping an event.
#pragma once

#include "fabrics/core/EventHandlers.hpp"

#include <mxl/fabrics_events.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace mxl::fabrics
{
    // Events a dispatch reads itself, on its thread, after the queued ones: a target's arrivals where no library thread
    // reads them. Events it queues while reading are dispatched before the one it returns.
    class EventSource
    {
    public:
        [[nodiscard]] virtual std::optional<mxlFabricsEvent> next() = 0;

    protected:
        ~EventSource() = default;
    };

    template <typename Owner>
    class EventDispatcher
    {
    public:
        // `owner` is handed to every handler; `name` ("fabrics target <id>") begins its log lines. A capacity of 0 takes
        // the default.
        EventDispatcher(Owner owner, EventHandlers<Owner> const& handlers, std::size_t capacity, std::string name);
        ~EventDispatcher();

        EventDispatcher(EventDispatcher const&) = delete;
        EventDispatcher& operator=(EventDispatcher const&) = delete;

        [[nodiscard]] int descriptor() const noexcept
        {
            return _descriptor;
        }

        // The library thread: queues `event`, waiting while the queue is full; false when `stop` came first.
        bool post(mxlFabricsEvent const& event, std::stop_token const& stop);

        // A library event queued from the dispatching thread itself, which cannot wait for room: false when the queue is
        // full. Never joins a running dispatch, so that library events keep their order.
        bool offer(mxlFabricsEvent const& event);
        // A library event found the queue full and waits elsewhere (counted in fullWaits, logged the first time).
        void noteFullWait();

        // An application's event: from a handler on the dispatching thread it joins the running dispatch, otherwise it is
        // queued; false when the queue is full.
        bool emit(mxlFabricsEvent const& event);

        // Runs the handlers of the events queued now, or of the first ones to come within `timeout`; how many ran.
        std::size_t dispatch(std::chrono::milliseconds timeout);
        // Runs the handlers of the events queued now, then of what `source` gives, at most `reads` of them; does not
        // wait.
        std::size_t dispatch(EventSource& source, std::size_t reads);

        [[nodiscard]] bool empty() const;

        [[nodiscard]] std::size_t capacity() const noexcept
        {
            return _ring.size();
        }

        // Makes the descriptor readable with nothing queued, so that the application dispatches again; the next dispatch
        // clears it.
        void wake();

        [[nodiscard]] bool dispatchingOnThisThread() const;

        [[nodiscard]] mxlFabricsEventCounters counters() const;

    private:
        Owner _owner;
        EventHandlers<Owner> const& _handlers;
        std::string _name;
        int _descriptor;

        mutable std::mutex _mutex;
        std::condition_variable _queuedOne;
        std::condition_variable_any _tookOne;
        // A ring of _ring.size() events: [_head, _head + _size).
        std::vector<mxlFabricsEvent> _ring;
        std::size_t _head = 0;
        // Changed under the lock; the dispatching thread may read it without (empty(), what a read queued).
        std::atomic<std::size_t> _size{0};
        // wake() set the descriptor with nothing queued.
        bool _woken = false;
        // Written under the lock; whether it is this thread can be read without it.
        std::atomic<std::thread::id> _dispatchingThread{std::thread::id{}};
        // Emitted by handlers during the running dispatch; only the dispatching thread touches it.
        std::deque<mxlFabricsEvent> _emittedByHandlers;
        // Counted under the lock, except what only the dispatching thread counts (below), which counters() adds.
        mxlFabricsEventCounters _counters{};
        std::atomic<std::uint64_t> _dispatched{0};
        // Events an EventSource gave, counted in `queued` as if they had passed through the queue.
        std::atomic<std::uint64_t> _readFromSource{0};
        // The handler of the last type delivered, kept while the handlers' generation stays the same; only the
        // dispatching thread touches it.
        struct CachedHandler
        {
            std::uint32_t type = 0;
            std::uint64_t generation = 0;
            typename EventHandlers<Owner>::Handler handler;
        };
        std::optional<CachedHandler> _lastHandler;

        void enqueue(mxlFabricsEvent const& event);
        [[nodiscard]] typename EventHandlers<Owner>::Handler handlerOf(std::uint32_t type);
        // Adds one to a counter only the dispatching thread writes.
        static void countOne(std::atomic<std::uint64_t>& counter) noexcept
        {
            counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        }
        [[nodiscard]] mxlFabricsEvent take();
        void deliver(mxlFabricsEvent const& event);
        // Delivers `count` queued events, and what their handlers emit; how many.
        std::size_t deliverQueued(std::size_t count);
        // Delivers `event`, then what its handler emitted; how many.
        std::size_t deliverWithEmitted(mxlFabricsEvent const& event);
        // Marks this thread as dispatching; false when nothing is queued and `waitFor` passed.
        bool beginDispatch(std::optional<std::chrono::milliseconds> waitFor, std::size_t& queued);
        void endDispatch() noexcept;
        // Under the lock.
        void clearDescriptor();

        struct Ending
        {
            EventDispatcher& dispatcher;
            ~Ending()
            {
                dispatcher.endDispatch();
            }
        };
    };

    extern template class EventDispatcher<mxlFabricsTarget>;
    extern template class EventDispatcher<mxlFabricsInitiator>;
}
