#include "fabrics/core/InlineArrivals.hpp"

#include "common/EpollSet.hpp"
#include "common/Log.hpp"
#include "common/Status.hpp"
#include "fabrics/core/ArrivalEvents.hpp"
#include "fabrics/core/Target.hpp"

#include <poll.h>
#include <sys/epoll.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace mxl::fabrics
{
    namespace
    {
        // Arms that find work waiting before the descriptor is woken instead.
        constexpr int armAttempts = 16;
    }

    InlineArrivals::InlineArrivals(Target& target, std::shared_ptr<EventDispatcher<mxlFabricsTarget>> dispatcher)
        : _target{target}
        , _dispatcher{std::move(dispatcher)}
        , _waitSet{openEpollSet({_dispatcher->descriptor(), target.transport->waitDescriptor()},
                                fmt::format("fabrics target {}", target.ticket().id))}
    {
        _target.transport->observeConnections([this](ConnectionChange const& change) { keep(connectionEvent(change)); });
        // Arrivals that came before the start are read as soon as the application dispatches.
        std::lock_guard lock{_reading};
        if (!armTransport())
        {
            _dispatcher->wake();
        }
    }

    InlineArrivals::~InlineArrivals()
    {
        halt();
    }

    void InlineArrivals::halt() noexcept
    {
        std::lock_guard lock{_reading};
        if (!_halted)
        {
            _halted = true;
            _target.transport->observeConnections({});
        }
    }

    std::size_t InlineArrivals::dispatch(std::chrono::milliseconds timeout)
    {
        if (_dispatcher->dispatchingOnThisThread())
        {
            // The dispatcher's own refusal names the handler.
            return _dispatcher->dispatch(*this, 0);
        }
        if (_dispatching.exchange(true))
        {
            fail(MXL_ERR_INVALID_STATE, "fabrics target {}: its events are being dispatched already (by another thread)",
                 _target.ticket().id);
        }
        struct Ending
        {
            std::atomic<bool>& dispatching;
            ~Ending()
            {
                dispatching = false;
            }
        } const ending{_dispatching};
        auto dispatched = dispatchReady();
        if (dispatched == 0 && timeout.count() > 0)
        {
            // Armed by dispatchReady: the poll wakes for the next work.
            pollfd ready{_waitSet.get(), POLLIN, 0};
            if (::poll(&ready, 1, static_cast<int>(timeout.count())) < 0 && errno != EINTR)
            {
                fail(MXL_ERR_UNKNOWN, "fabrics target {}: waiting on the event descriptor failed: {}", _target.ticket().id,
                     std::strerror(errno));
            }
            dispatched = dispatchReady();
        }
        return dispatched;
    }

    std::size_t InlineArrivals::dispatchReady()
    {
        std::lock_guard lock{_reading};
        if (_halted)
        {
            return 0;
        }
        admitWaiting();
        _readOne = false;
        _armed = false;
        // At most a queue's worth in all, so that a busy target cannot keep one call running.
        auto const budget = _dispatcher->capacity();
        auto dispatched = _dispatcher->dispatch(*this, budget);
        // The descriptor must wake for the next work. Work that arming finds waiting is read by this call rather than
        // handed to the next one through the eventfd, which would cost a write, a poll and a read.
        for (int attempt = 0; attempt < armAttempts && dispatched < budget; ++attempt)
        {
            admitWaiting();
            _readOne = false;
            // Something queued (or, when it is full, waiting behind it) keeps the eventfd readable.
            if (_failed || !_dispatcher->empty() || std::exchange(_armed, false) || armTransport() || _failed)
            {
                return dispatched;
            }
            dispatched += _dispatcher->dispatch(*this, budget - dispatched);
        }
        // Busy with work each time, or a queue's worth dispatched: the application comes back to it.
        _dispatcher->wake();
        return dispatched;
    }

    std::optional<mxlFabricsEvent> InlineArrivals::next()
    {
        if (!_waiting.empty())
        {
            auto const event = _waiting.front();
            _waiting.pop_front();
            return event;
        }
        if (_failed)
        {
            return std::nullopt;
        }
        // After an arrival the transport is armed rather than read again: arming learns whether more is waiting at the
        // cost of a read, and a dispatch that ends armed is done.
        if (std::exchange(_readOne, false))
        {
            _armed = armTransport();
            if (_armed || _failed)
            {
                return std::nullopt;
            }
        }
        auto event = readArrivalEvent(_target, std::chrono::milliseconds{0});
        _readOne = event.has_value();
        if (event && event->type == MXL_FABRICS_EVENT_TARGET_FAILED)
        {
            stopReading();
        }
        if (event && !_waiting.empty())
        {
            // A connection change seen during this read found the queue full: it goes first.
            _waiting.push_back(*event);
            event = _waiting.front();
            _waiting.pop_front();
        }
        return event;
    }

    void InlineArrivals::keep(mxlFabricsEvent const& event)
    {
        if (!_waiting.empty() || !_dispatcher->offer(event))
        {
            _waiting.push_back(event);
            _dispatcher->noteFullWait();
        }
    }

    void InlineArrivals::admitWaiting()
    {
        while (!_waiting.empty() && _dispatcher->offer(_waiting.front()))
        {
            _waiting.pop_front();
        }
    }

    bool InlineArrivals::armTransport()
    {
        try
        {
            return _target.transport->arm();
        }
        catch (std::exception const& e)
        {
            auto const* error = dynamic_cast<Error const*>(&e);
            keep(failureEvent(_target.ticket().id, error != nullptr ? error->status() : MXL_ERR_UNKNOWN,
                              fmt::format("arming the wait descriptor failed: {}", e.what())));
            stopReading();
            return false;
        }
    }

    void InlineArrivals::stopReading() noexcept
    {
        _failed = true;
        ::epoll_ctl(_waitSet.get(), EPOLL_CTL_DEL, _target.transport->waitDescriptor(), nullptr);
    }
}
