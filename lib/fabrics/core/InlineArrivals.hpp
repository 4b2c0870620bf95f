// The events of a started target whose transport has a wait descriptor: no library thread. The descriptor handed to
// the application is an epoll set of the queue's eventfd and the transport's descriptor, so its poll wakes for an
// arrival as for a queued event, and the dispatch reads the arrivals itself, on the application's thread, as ReadGrain
// would: one thread hop fewer than the library thread (TargetEventPump) takes. Connection changes seen while reading
// are queued and dispatched before the arrival that followed them. Before a dispatch returns, the transport is armed
// (what arming finds waiting is read by the same dispatch), so that the descriptor never sleeps on unread work.
#pragma once

#include "common/UniqueFd.hpp"
#include "fabrics/core/EventDispatcher.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

namespace mxl::fabrics
{
    struct Target;

    class InlineArrivals final : public EventSource
    {
    public:
        // `target` is set up, its transport has a wait descriptor, and it stays so until halt().
        InlineArrivals(Target& target, std::shared_ptr<EventDispatcher<mxlFabricsTarget>> dispatcher);
        ~InlineArrivals();

        InlineArrivals(InlineArrivals const&) = delete;
        InlineArrivals& operator=(InlineArrivals const&) = delete;

        [[nodiscard]] int descriptor() const noexcept
        {
            return _waitSet.get();
        }

        // Runs the handlers of the events queued and arrived now, or of the first to come within `timeout`; how many.
        std::size_t dispatch(std::chrono::milliseconds timeout);

        // Stops the reading, once a dispatch running on another thread has returned: the target is not touched again
        // and stops reporting connections.
        void halt() noexcept;

        // The next event read, or seen while reading, that was not told yet; nothing is waited for.
        [[nodiscard]] std::optional<mxlFabricsEvent> next() override;

    private:
        Target& _target;
        std::shared_ptr<EventDispatcher<mxlFabricsTarget>> _dispatcher;
        UniqueFd _waitSet;
        // Events read, or connection changes seen, that found the queue full, oldest first: told before anything newer.
        std::deque<mxlFabricsEvent> _waiting;
        // Held while the target is read; halt() takes it.
        std::mutex _reading;
        bool _halted = false;
        // Reading failed (TARGET_FAILED was told): nothing more is read, and the transport left the wait set.
        bool _failed = false;
        std::atomic<bool> _dispatching{false};
        // This dispatch's last read gave an event; this dispatch's reading armed the transport.
        bool _readOne = false;
        bool _armed = false;

        // Dispatches without waiting until the transport is armed, or an event queued (which the queue's eventfd shows),
        // or, when the transport stays busy, the eventfd woken: the descriptor never sleeps on unread work.
        std::size_t dispatchReady();
        // Into the queue, or behind what waits for room in it.
        void keep(mxlFabricsEvent const& event);
        // Moves waiting events into the queue while it has room.
        void admitWaiting();
        // Whether the transport's descriptor will wake for its next work; a failure is told (TARGET_FAILED) and ends
        // the reading.
        bool armTransport();
        // After TARGET_FAILED: no more reads, and the transport's descriptor leaves the wait set.
        void stopReading() noexcept;
    };
}
