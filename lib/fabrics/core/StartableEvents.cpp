#include "fabrics/core/StartableEvents.hpp"

#include "common/Status.hpp"

#include <type_traits>

namespace mxl::fabrics
{
    namespace
    {
        template <typename Owner>
        constexpr char const* startCall() noexcept
        {
            return std::is_same_v<Owner, mxlFabricsTarget> ? "mxlFabricsTargetStartEvents" : "mxlFabricsInitiatorStartEvents";
        }
    }

    template <typename Owner>
    StartableEvents<Owner>::StartableEvents(Owner owner, char const* role) noexcept
        : _owner{owner}
        , _role{role}
    {
    }

    template <typename Owner>
    std::shared_ptr<EventDispatcher<Owner>> StartableEvents<Owner>::newDispatcher(std::size_t queueCapacity, std::string name) const
    {
        if (_dispatcher)
        {
            fail(MXL_ERR_INVALID_STATE, "the {}'s events are started already (descriptor {})", _role, _dispatcher->descriptor());
        }
        return std::make_shared<EventDispatcher<Owner>>(_owner, _handlers, queueCapacity, std::move(name));
    }

    template <typename Owner>
    std::shared_ptr<EventDispatcher<Owner>> StartableEvents<Owner>::current() const
    {
        std::lock_guard lock{_mutex};
        return _dispatcher;
    }

    template <typename Owner>
    std::shared_ptr<EventDispatcher<Owner>> StartableEvents<Owner>::started() const
    {
        auto dispatcher = current();
        if (!dispatcher)
        {
            fail(MXL_ERR_INVALID_STATE, "the {}'s events are not started ({})", _role, startCall<Owner>());
        }
        return dispatcher;
    }

    template <typename Owner>
    bool StartableEvents<Owner>::emit(mxlFabricsEvent const& event)
    {
        auto const checked = userEvent(event);
        return started()->emit(checked);
    }

    template <typename Owner>
    mxlFabricsEventCounters StartableEvents<Owner>::counters() const
    {
        return started()->counters();
    }

    template <typename Owner>
    void StartableEvents<Owner>::refuseFromHandler() const
    {
        auto const dispatcher = current();
        if (dispatcher && dispatcher->dispatchingOnThisThread())
        {
            fail(MXL_ERR_INVALID_STATE,
                 "called from an event handler of this {}: stopping its events, setting it up and destroying it are "
                 "refused there (they would end the dispatch that runs the handler)",
                 _role);
        }
    }

    template class StartableEvents<mxlFabricsTarget>;
    template class StartableEvents<mxlFabricsInitiator>;
}
