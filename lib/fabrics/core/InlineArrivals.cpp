#include "fabrics/core/InlineArrivals.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"
#include "fabrics/core/ArrivalEvents.hpp"
#include "fabrics/core/Target.hpp"

#include <poll.h>
#include <sys/epoll.h>

#include <cerrno>
#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        // Arms that find work waiting in a row before the descriptor is left to the queue: each of them read an event
        // or found the transport busy with something that was not an arrival.
        constexpr int armAttempts = 16;

        // An epoll set of `descriptors`, owned by the caller.
        int waitSetOf(std::initializer_list<int> descriptors, std::uint64_t targetId)
        {
            UniqueFd set{::epoll_create1(EPOLL_CLOEXEC)};
            if (set.get() < 0)
            {
                fail(MXL_ERR_UNKNOWN, "fabrics target {}: could not create the event descriptor: {}", targetId, std::strerror(errno));
            }
            for (auto const descriptor : descriptors)
            {
                epoll_event interest{};
                interest.events = EPOLLIN;
                interest.data.fd = descriptor;
                if (::epoll_ctl(set.get(), EPOLL_CTL_ADD, descriptor, &interest) != 0)
                {
                    fail(MXL_ERR_UNKNOWN, "fabrics target {}: could not add descriptor {} to the event descriptor: {}", targetId,
                         descriptor, std::strerror(errno));
                }
            }
            return set.take();
        }
    }

    InlineArrivals::InlineArrivals(Target& target, std::shared_ptr<EventDispatcher<mxlFabricsTarget>> dispatcher)
        : _target{target}
        , _dispatcher{std::move(dispatcher)}
        , _waitSet{waitSetOf({_dispatcher->descriptor(), target.transport->waitDescriptor()}, target.ticket().id)}
    {
        _target.transport->observeConnections([this](ConnectionChange const& change) { queueConnection(connectionEvent(change)); });
        // Arrivals that came before the start are read as soon as the application dispatches.
        arm();
    }

    InlineArrivals::~InlineArrivals()
    {
        _target.transport->observeConnections({});
    }

    std::size_t InlineArrivals::dispatch(std::chrono::milliseconds timeout)
    {
        if (_dispatcher->dispatchingOnThisThread())
        {
            // The dispatcher's own refusal names the handler.
            return _dispatcher->dispatch(*this);
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
        admitWaiting();
        auto dispatched = _dispatcher->dispatch(*this);
        if (dispatched == 0 && timeout.count() > 0)
        {
            arm();
            pollfd ready{_waitSet.get(), POLLIN, 0};
            if (::poll(&ready, 1, static_cast<int>(timeout.count())) < 0 && errno != EINTR)
            {
                fail(MXL_ERR_UNKNOWN, "fabrics target {}: waiting on the event descriptor failed: {}", _target.ticket().id,
                     std::strerror(errno));
            }
            admitWaiting();
            dispatched = _dispatcher->dispatch(*this);
        }
        arm();
        return dispatched;
    }

    std::optional<mxlFabricsEvent> InlineArrivals::next()
    {
        if (_failed)
        {
            return std::nullopt;
        }
        auto event = readArrivalEvent(_target, std::chrono::milliseconds{0});
        if (event && event->type == MXL_FABRICS_EVENT_TARGET_FAILED)
        {
            _failed = true;
            leaveWaitSet();
        }
        return event;
    }

    void InlineArrivals::queueConnection(mxlFabricsEvent const& event)
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

    void InlineArrivals::arm()
    {
        for (int attempt = 0; attempt < armAttempts; ++attempt)
        {
            if (_failed || !_dispatcher->empty())
            {
                return;
            }
            bool armed = false;
            try
            {
                armed = _target.transport->arm();
            }
            catch (std::exception const& e)
            {
                // Told as the failure of the next read.
                log::warn("fabrics target {}: arming its wait descriptor failed: {}", _target.ticket().id, e.what());
                return;
            }
            if (armed)
            {
                return;
            }
            // Work is waiting: what it gives is queued, so that the queue's eventfd wakes the application.
            if (auto const event = next(); event && !_dispatcher->offer(*event))
            {
                _waiting.push_back(*event);
                _dispatcher->noteFullWait();
                return;
            }
        }
        log::debug("fabrics target {}: its transport stayed busy through {} attempts to arm its wait descriptor", _target.ticket().id,
                   armAttempts);
    }

    void InlineArrivals::leaveWaitSet() noexcept
    {
        ::epoll_ctl(_waitSet.get(), EPOLL_CTL_DEL, _target.transport->waitDescriptor(), nullptr);
    }
}
