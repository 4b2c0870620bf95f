#include "fabrics/core/EventHandlers.hpp"

#include "common/Status.hpp"

namespace mxl::fabrics
{
    bool isLibraryEventType(std::uint32_t type) noexcept
    {
        return type >= MXL_FABRICS_EVENT_GRAIN_ARRIVED && type <= MXL_FABRICS_EVENT_TARGET_FAILED;
    }

    bool isUserEventType(std::uint32_t type) noexcept
    {
        return type >= MXL_FABRICS_EVENT_USER;
    }

    void EventHandlers::set(std::uint32_t type, Handler handler)
    {
        if (!isLibraryEventType(type) && !isUserEventType(type))
        {
            fail(MXL_ERR_INVALID_ARG, "event type {} is neither a library event type ({}..{}) nor a user type (>= {})", type,
                 static_cast<int>(MXL_FABRICS_EVENT_GRAIN_ARRIVED), static_cast<int>(MXL_FABRICS_EVENT_TARGET_FAILED),
                 static_cast<int>(MXL_FABRICS_EVENT_USER));
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
    }

    EventHandlers::Handler EventHandlers::find(std::uint32_t type) const
    {
        std::lock_guard lock{_mutex};
        auto const found = _handlers.find(type);
        return found == _handlers.end() ? Handler{} : found->second;
    }
}
