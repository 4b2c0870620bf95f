// The library thread of a target whose events are started and whose transport has no wait descriptor (InlineArrivals
// serves the others): it reads arrivals as ReadGrain/ReadSamples would (that read is also what progresses tcp and shm),
// in short waits so that it notices a stop, and queues an event for each arrival, loss, connection change and failure.
#pragma once

#include "fabrics/core/EventDispatcher.hpp"

#include <memory>
#include <stop_token>
#include <thread>

namespace mxl::fabrics
{
    struct Target;

    class TargetEventPump
    {
    public:
        // `target` must be set up, and stay so until the pump is destroyed.
        TargetEventPump(Target& target, std::shared_ptr<EventDispatcher<mxlFabricsTarget>> dispatcher);
        // Stops and joins the thread; the target stops reporting connections.
        ~TargetEventPump();

        TargetEventPump(TargetEventPump const&) = delete;
        TargetEventPump& operator=(TargetEventPump const&) = delete;

    private:
        Target& _target;
        std::shared_ptr<EventDispatcher<mxlFabricsTarget>> _dispatcher;
        std::jthread _thread;

        void run(std::stop_token const& stop) noexcept;
    };
}
