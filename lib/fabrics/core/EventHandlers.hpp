// The handler of each event type of a target or an initiator (include/mxl/fabrics_events.h): set from any thread,
// looked up by the dispatching one. Handlers are kept across StopEvents and setup. `Owner` is the C handle that
// handlers are given (mxlFabricsTarget or mxlFabricsInitiator).
#pragma once

#include <mxl/fabrics_events.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace mxl::fabrics
{
    [[nodiscard]] bool isUserEventType(std::uint32_t type) noexcept;

    // A library event of `type`, every other field zeroed.
    [[nodiscard]] inline mxlFabricsEvent libraryEvent(mxlFabricsEventType type) noexcept
    {
        mxlFabricsEvent event{};
        event.structSize = sizeof(event);
        event.type = type;
        return event;
    }

    // An application's event as the library's struct, fields its emitter did not know zeroed; INVALID_ARG for a library
    // type or a structSize below the first version's.
    [[nodiscard]] mxlFabricsEvent userEvent(mxlFabricsEvent const& emitted);

    // The types the library queues for an owner: [first, last].
    struct LibraryEventTypes
    {
        std::uint32_t first;
        std::uint32_t last;

        [[nodiscard]] bool contains(std::uint32_t type) const noexcept
        {
            return type >= first && type <= last;
        }
    };

    template <typename Owner>
    [[nodiscard]] LibraryEventTypes libraryEventTypes() noexcept;

    template <typename Owner>
    class EventHandlers
    {
    public:
        struct Handler
        {
            void (*function)(Owner, mxlFabricsEvent const*, void*) = nullptr;
            void* userData = nullptr;
        };

        // A null function removes the handler of `type`; a type that is neither the owner's library type nor a user type
        // is refused.
        void set(std::uint32_t type, Handler handler);

        // A copy, so that a handler may replace or remove itself while it runs.
        [[nodiscard]] Handler find(std::uint32_t type) const;

        // Changes with every set(), so that a dispatcher may keep what find() gave until it does.
        [[nodiscard]] std::uint64_t generation() const noexcept
        {
            return _generation.load(std::memory_order_acquire);
        }

    private:
        mutable std::mutex _mutex;
        std::unordered_map<std::uint32_t, Handler> _handlers;
        std::atomic<std::uint64_t> _generation{0};
    };

    extern template class EventHandlers<mxlFabricsTarget>;
    extern template class EventHandlers<mxlFabricsInitiator>;
}
