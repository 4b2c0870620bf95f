#include "fabrics/core/EventDispatcher.hpp"

#include "common/Status.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::size_t defaultCapacity = 1024;
        constexpr std::size_t maximumCapacity = 65536;

        std::size_t capacityOf(std::size_t requested)
        {
            if (requested > maximumCapacity)
            {
                fail(MXL_ERR_INVALID_ARG, "an event queue of {} events was asked for; it holds at most {} (0 for the default {})",
                     requested, maximumCapacity, defaultCapacity);
            }
            return requested == 0 ? defaultCapacity : requested;
        }
    }

    template <typename Owner>
    EventDispatcher<Owner>::EventDispatcher(Owner owner, EventHandlers<Owner> const& handlers, std::size_t capacity, std::string name)
        : _owner{owner}
        , _handlers{handlers}
        , _name{std::move(name)}
        , _descriptor{-1}
        , _ring(capacityOf(capacity))
    {
        _descriptor = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (_descriptor < 0)
        {
            fail(MXL_ERR_UNKNOWN, "{}: could not create the event descriptor: {}", _name, std::strerror(errno));
        }
        _counters.structSize = sizeof(_counters);
        _counters.queueCapacity = static_cast<std::uint32_t>(_ring.size());
    }

    template <typename Owner>
    EventDispatcher<Owner>::~EventDispatcher()
    {
        ::close(_descriptor);
    }

    template <typename Owner>
    bool EventDispatcher<Owner>::post(mxlFabricsEvent const& event, std::stop_token const& stop)
    {
        std::unique_lock lock{_mutex};
        if (_size == _ring.size())
        {
            if (_counters.fullWaits++ == 0)
            {
                log::warn("{}: the event queue is full ({} undispatched events): arrivals are not read until the application dispatches, "
                          "so initiators may find this target lagging; dispatch more often or start events with a larger queue",
                          _name, _ring.size());
            }
            if (!_tookOne.wait(lock, stop, [&] { return _size < _ring.size(); }))
            {
                return false;
            }
        }
        enqueue(event);
        return true;
    }

    template <typename Owner>
    bool EventDispatcher<Owner>::offer(mxlFabricsEvent const& event)
    {
        std::lock_guard lock{_mutex};
        if (_size == _ring.size())
        {
            return false;
        }
        enqueue(event);
        return true;
    }

    template <typename Owner>
    void EventDispatcher<Owner>::noteFullWait()
    {
        std::lock_guard lock{_mutex};
        if (_counters.fullWaits++ == 0)
        {
            log::warn("{}: the event queue is full ({} undispatched events): events wait until the application dispatches; dispatch "
                      "more often or start events with a larger queue",
                      _name, _ring.size());
        }
    }

    template <typename Owner>
    bool EventDispatcher<Owner>::emit(mxlFabricsEvent const& event)
    {
        std::lock_guard lock{_mutex};
        if (_dispatchingThread.load(std::memory_order_relaxed) == std::this_thread::get_id())
        {
            _emittedByHandlers.push_back(event);
            return true;
        }
        if (_size == _ring.size())
        {
            ++_counters.emitsRefused;
            return false;
        }
        enqueue(event);
        return true;
    }

    template <typename Owner>
    void EventDispatcher<Owner>::enqueue(mxlFabricsEvent const& event)
    {
        // The descriptor's counter is non-zero exactly while the queue is not empty: set on the first event, cleared by
        // the take that empties it, both under the mutex.
        if (_size == 0)
        {
            std::uint64_t const one = 1;
            if (::write(_descriptor, &one, sizeof(one)) != static_cast<ssize_t>(sizeof(one)))
            {
                fail(MXL_ERR_UNKNOWN, "{}: could not signal the event descriptor: {}", _name, std::strerror(errno));
            }
        }
        _ring[(_head + _size) % _ring.size()] = event;
        ++_size;
        ++_counters.queued;
        _counters.highWater = std::max<std::uint64_t>(_counters.highWater, _size.load());
        _queuedOne.notify_one();
    }

    template <typename Owner>
    mxlFabricsEvent EventDispatcher<Owner>::take()
    {
        std::lock_guard lock{_mutex};
        auto const event = _ring[_head];
        _head = (_head + 1) % _ring.size();
        --_size;
        if (_size == 0)
        {
            clearDescriptor();
        }
        _tookOne.notify_one();
        return event;
    }

    template <typename Owner>
    bool EventDispatcher<Owner>::beginDispatch(std::optional<std::chrono::milliseconds> waitFor, std::size_t& queued)
    {
        std::unique_lock lock{_mutex};
        if (auto const dispatching = _dispatchingThread.load(std::memory_order_relaxed); dispatching != std::thread::id{})
        {
            fail(MXL_ERR_INVALID_STATE, "{}: its events are being dispatched already ({})", _name,
                 dispatching == std::this_thread::get_id() ? "DispatchEvents was called from an event handler" : "by another thread");
        }
        if (std::exchange(_woken, false) && _size == 0)
        {
            clearDescriptor();
        }
        if (waitFor)
        {
            _queuedOne.wait_for(lock, *waitFor, [&] { return _size > 0; });
            if (_size == 0)
            {
                return false;
            }
        }
        queued = _size;
        _dispatchingThread.store(std::this_thread::get_id(), std::memory_order_relaxed);
        return true;
    }

    template <typename Owner>
    std::size_t EventDispatcher<Owner>::deliverQueued(std::size_t count)
    {
        std::size_t dispatched = 0;
        for (std::size_t i = 0; i < count; ++i)
        {
            dispatched += deliverWithEmitted(take());
        }
        return dispatched;
    }

    template <typename Owner>
    std::size_t EventDispatcher<Owner>::deliverWithEmitted(mxlFabricsEvent const& event)
    {
        deliver(event);
        std::size_t dispatched = 1;
        while (!_emittedByHandlers.empty())
        {
            auto const emitted = _emittedByHandlers.front();
            _emittedByHandlers.pop_front();
            deliver(emitted);
            ++dispatched;
        }
        return dispatched;
    }

    template <typename Owner>
    std::size_t EventDispatcher<Owner>::dispatch(std::chrono::milliseconds timeout)
    {
        std::size_t queuedAtStart = 0;
        if (!beginDispatch(timeout, queuedAtStart))
        {
            return 0;
        }
        // Events that arrive meanwhile wait for the next call, so that a busy target cannot keep one call running.
        Ending const ending{*this};
        return deliverQueued(queuedAtStart);
    }

    template <typename Owner>
    std::size_t EventDispatcher<Owner>::dispatch(EventSource& source, std::size_t reads)
    {
        std::size_t queuedAtStart = 0;
        static_cast<void>(beginDispatch(std::nullopt, queuedAtStart));
        Ending const ending{*this};
        auto dispatched = deliverQueued(queuedAtStart);
        for (std::size_t i = 0; i < reads; ++i)
        {
            auto const event = source.next();
            // What the reading queued (connection changes) comes before what it read.
            dispatched += deliverQueued(_size.load(std::memory_order_acquire));
            if (!event)
            {
                break;
            }
            countOne(_readFromSource);
            dispatched += deliverWithEmitted(*event);
        }
        return dispatched;
    }

    template <typename Owner>
    void EventDispatcher<Owner>::clearDescriptor()
    {
        // EAGAIN only if the application read the descriptor itself: cleared all the same.
        std::uint64_t count = 0;
        if (::read(_descriptor, &count, sizeof(count)) < 0 && errno != EAGAIN)
        {
            log::warn("{}: could not clear the event descriptor: {}", _name, std::strerror(errno));
        }
    }

    template <typename Owner>
    void EventDispatcher<Owner>::wake()
    {
        std::lock_guard lock{_mutex};
        if (_size > 0 || _woken)
        {
            return;
        }
        std::uint64_t const one = 1;
        if (::write(_descriptor, &one, sizeof(one)) != static_cast<ssize_t>(sizeof(one)))
        {
            fail(MXL_ERR_UNKNOWN, "{}: could not signal the event descriptor: {}", _name, std::strerror(errno));
        }
        _woken = true;
    }

    template <typename Owner>
    bool EventDispatcher<Owner>::empty() const
    {
        return _size.load(std::memory_order_acquire) == 0;
    }

    template <typename Owner>
    void EventDispatcher<Owner>::deliver(mxlFabricsEvent const& event)
    {
        auto const handler = handlerOf(event.type);
        if (handler.function != nullptr)
        {
            handler.function(_owner, &event, handler.userData);
        }
        countOne(_dispatched);
    }

    template <typename Owner>
    typename EventHandlers<Owner>::Handler EventDispatcher<Owner>::handlerOf(std::uint32_t type)
    {
        // Read before the lookup: a handler set meanwhile changes it again, and the next event looks up afresh.
        auto const generation = _handlers.generation();
        if (!_lastHandler || _lastHandler->type != type || _lastHandler->generation != generation)
        {
            _lastHandler = CachedHandler{type, generation, _handlers.find(type)};
        }
        return _lastHandler->handler;
    }

    template <typename Owner>
    void EventDispatcher<Owner>::endDispatch() noexcept
    {
        std::lock_guard lock{_mutex};
        _dispatchingThread.store({}, std::memory_order_relaxed);
        _emittedByHandlers.clear();
    }

    template <typename Owner>
    bool EventDispatcher<Owner>::dispatchingOnThisThread() const
    {
        // Only this thread makes it this thread's id, so no lock is needed to see whether it is.
        return _dispatchingThread.load(std::memory_order_relaxed) == std::this_thread::get_id();
    }

    template <typename Owner>
    mxlFabricsEventCounters EventDispatcher<Owner>::counters() const
    {
        std::lock_guard lock{_mutex};
        auto counters = _counters;
        counters.queued += _readFromSource.load(std::memory_order_relaxed);
        counters.dispatched = _dispatched.load(std::memory_order_relaxed);
        return counters;
    }

    template class EventDispatcher<mxlFabricsTarget>;
    template class EventDispatcher<mxlFabricsInitiator>;
}
