// The handler of each event type of a target (include/mxl/fabrics_events.h): set from any thread, looked up by the
// dispatching one. A target keeps its handlers across StopEvents and setup.
#pragma once

#include <mxl/fabrics_events.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace mxl::fabrics
{
    [[nodiscard]] bool isLibraryEventType(std::uint32_t type) noexcept;
    [[nodiscard]] bool isUserEventType(std::uint32_t type) noexcept;

    class EventHandlers
    {
    public:
        struct Handler
        {
            mxlFabricsEventHandler function = nullptr;
            void* userData = nullptr;
        };

        // A null function removes the handler of `type`; a type that is neither the library's nor a user type is refused.
        void set(std::uint32_t type, Handler handler);

        // A copy, so that a handler may replace or remove itself while it runs.
        [[nodiscard]] Handler find(std::uint32_t type) const;

    private:
        mutable std::mutex _mutex;
        std::unordered_map<std::uint32_t, Handler> _handlers;
    };
}
