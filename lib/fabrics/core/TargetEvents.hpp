// The events of one target (include/mxl/fabrics_events.h): its handlers, which it keeps, and while events are started,
// the queue and what reads the arrivals into it: the application's own dispatch where the transport has a wait
// descriptor (InlineArrivals), a library thread elsewhere (TargetEventPump).
#pragma once

#include "fabrics/core/InlineArrivals.hpp"
#include "fabrics/core/StartableEvents.hpp"
#include "fabrics/core/TargetEventPump.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace mxl::fabrics
{
    struct Target;

    class TargetEvents final : public StartableEvents<mxlFabricsTarget>
    {
    public:
        // `owner` is what handlers are given.
        explicit TargetEvents(mxlFabricsTarget owner) noexcept;
        ~TargetEvents();

        // Starts reading a set-up `target`'s arrivals into events; returns the descriptor the application polls.
        int start(Target& target, std::size_t queueCapacity);
        // Nothing to do when not started; refused from a handler, which would be stopping the call it runs in.
        void stop();
        [[nodiscard]] std::size_t dispatch(std::chrono::milliseconds timeout);

        // Fails while started: the events read the arrivals then.
        void refuseReadWhileStarted() const;

    private:
        std::unique_ptr<TargetEventPump> _pump;
        // Shared with a dispatch running on another thread, which a stop waits for (InlineArrivals::halt).
        std::shared_ptr<InlineArrivals> _inline;
        // The ticket the last start ran on, so that a start on a newer one can announce it: {id, epoch}, or nullopt.
        std::optional<std::pair<std::uint64_t, std::uint64_t>> _startedTicket;

        // Queues EPOCH_CHANGED first when the target was set up again since the last start.
        void announceNewTicket(EventDispatcher<mxlFabricsTarget>& dispatcher, TargetInfo const& ticket);
        void halt() noexcept;
    };
}
