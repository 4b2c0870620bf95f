#include "fabrics/core/EventHandlers.hpp"

#include "common/Status.hpp"

#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        // The size of mxlFabricsEvent in the first version of the header; emitters built against it pass no less.
        constexpr std::uint32_t firstEventSize = 144;
        static_assert(sizeof(mxlFabricsEvent) == firstEventSize);
    }

    bool isUserEventType(std::uint32_t type) noexcept
    {
        return type >= MXL_FABRICS_EVENT_USER;
    }

    mxlFabricsEvent userEvent(mxlFabricsEvent const& emitted)
    {
        if (emitted.structSize < firstEventSize)
        {
            fail(MXL_ERR_INVALID_ARG, "the event's structSize is {}, expected at least {} (sizeof(mxlFabricsEvent))", emitted.structSize,
                 firstEventSize);
        }
        if (!isUserEventType(emitted.type))
        {
            fail(MXL_ERR_INVALID_ARG, "event type {} is not a user type (>= MXL_FABRICS_EVENT_USER, {}); types below are the library's",
                 emitted.type, static_cast<int>(MXL_FABRICS_EVENT_USER));
        }
        mxlFabricsEvent event{};
        std::memcpy(&event, &emitted, sizeof(event));
        event.structSize = sizeof(event);
        return event;
    }

    template <>
    LibraryEventTypes libraryEventTypes<mxlFabricsTarget>() noexcept
    {
        return {MXL_FABRICS_EVENT_GRAIN_ARRIVED, MXL_FABRICS_EVENT_EPOCH_CHANGED};
    }

    template <>
    LibraryEventTypes libraryEventTypes<mxlFabricsInitiator>() noexcept
    {
        return {MXL_FABRICS_EVENT_TARGET_CONNECTED, MXL_FABRICS_EVENT_BATCH_COMPLETED};
    }

    template <typename Owner>
    void EventHandlers<Owner>::set(std::uint32_t type, Handler handler)
    {
        auto const library = libraryEventTypes<Owner>();
        if (!library.contains(type) && !isUserEventType(type))
        {
            fail(MXL_ERR_INVALID_ARG, "event type {} is neither a library event type of this object ({}..{}) nor a user type (>= {})", type,
                 library.first, library.last, static_cast<int>(MXL_FABRICS_EVENT_USER));
        }
        std::lock_guard lock{_mutex};
        if (handler.function == nullptr)
        {
            _handlers.erase(type);
        }
        else
        {
            _handlers[type] = handler;
        }
        _generation.fetch_add(1, std::memory_order_release);
    }

    template <typename Owner>
    typename EventHandlers<Owner>::Handler EventHandlers<Owner>::find(std::uint32_t type) const
    {
        std::lock_guard lock{_mutex};
        auto const found = _handlers.find(type);
        return found == _handlers.end() ? Handler{} : found->second;
    }

    template class EventHandlers<mxlFabricsTarget>;
    template class EventHandlers<mxlFabricsInitiator>;
}
