// The events of a started target whose transport has a wait descriptor: no library thread. The descriptor handed to
// the application is an epoll set of the queue's eventfd and the transport's descriptor, so its poll wakes for an
// arrival as for a queued event, and the dispatch reads the arrivals itself, on the application's thread, as ReadGrain
// would: one thread hop fewer than the library thread (TargetEventPump) takes. Connection changes seen while reading
// are queued and dispatched before the arrival that followed them.
#pragma once

#include "common/UniqueFd.hpp"
#include "fabrics/core/EventDispatcher.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>

namespace mxl::fabrics
{
    struct Target;

    class InlineArrivals final : public EventSource
    {
    public:
        // `target` is set up, its transport has a wait descriptor, and it outlives this.
        InlineArrivals(Target& target, std::shared_ptr<EventDispatcher<mxlFabricsTarget>> dispatcher);
        // The target stops reporting connections.
        ~InlineArrivals();

        InlineArrivals(InlineArrivals const&) = delete;
        InlineArrivals& operator=(InlineArrivals const&) = delete;

        [[nodiscard]] int descriptor() const noexcept
        {
            return _waitSet.get();
        }

        // Runs the handlers of the events queued and arrived now, or of the first to come within `timeout`; how many.
        std::size_t dispatch(std::chrono::milliseconds timeout);

        // The next arrival's event, read without waiting.
        [[nodiscard]] std::optional<mxlFabricsEvent> next() override;

    private:
        Target& _target;
        std::shared_ptr<EventDispatcher<mxlFabricsTarget>> _dispatcher;
        UniqueFd _waitSet;
        // Connection events that found the queue full, oldest first.
        std::deque<mxlFabricsEvent> _waiting;
        // Reading failed (TARGET_FAILED was told): nothing more is read, and the transport left the wait set.
        bool _failed = false;
        std::atomic<bool> _dispatching{false};

        void queueConnection(mxlFabricsEvent const& event);
        // Moves waiting connection events into the queue while it has room.
        void admitWaiting();
        // Leaves the descriptor to wake for the next work: the transport armed, or an event queued (which the queue's
        // eventfd shows).
        void arm();
        void leaveWaitSet() noexcept;
    };
}
