// The C API of include/mxl/fabrics_events.h: check arguments, call the target's or the initiator's events, and let guard
// turn exceptions into statuses.
#include <mxl/fabrics_events.h>

#include "common/Status.hpp"
#include "fabrics/api/ArgumentChecks.hpp"
#include "fabrics/api/Instance.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace
{
    using namespace mxl;
    using namespace mxl::fabrics;

    // The event calls of targets and initiators (include/mxl/fabrics_events.h) differ only in the handle; `what` names it
    // in errors, `call` is the C function's name for guard.
    template <typename Handle, typename Handler>
    mxlStatus setEventHandler(char const* call, Handle handle, char const* what, std::uint32_t type, Handler handler, void* userData)
    {
        return guard(call,
                     [&]
                     {
                         require(handle, what);
                         handle->events.handlers().set(type, {handler, userData});
                     });
    }

    template <typename Handle, typename Start>
    mxlStatus startEvents(char const* call, Handle handle, char const* what, int* descriptor, Start&& start)
    {
        return guard(call,
                     [&]
                     {
                         require(handle, what);
                         require(descriptor, "out_fd");
                         *descriptor = start();
                     });
    }

    template <typename Handle>
    mxlStatus dispatchEvents(char const* call, Handle handle, char const* what, std::uint16_t timeoutMs, std::size_t* dispatched)
    {
        return guard(call,
                     [&]
                     {
                         require(handle, what);
                         require(dispatched, "out_dispatched");
                         *dispatched = handle->events.dispatch(std::chrono::milliseconds{timeoutMs});
                         return *dispatched == 0 ? MXL_ERR_NOT_READY : MXL_STATUS_OK;
                     });
    }

    template <typename Handle>
    mxlStatus emitEvent(char const* call, Handle handle, char const* what, mxlFabricsEvent const* event)
    {
        return guard(call,
                     [&]
                     {
                         require(handle, what);
                         require(event, "the event");
                         return handle->events.emit(*event) ? MXL_STATUS_OK : MXL_ERR_NOT_READY;
                     });
    }

    template <typename Handle>
    mxlStatus stopEvents(char const* call, Handle handle, char const* what)
    {
        return guard(call,
                     [&]
                     {
                         require(handle, what);
                         handle->events.stop();
                     });
    }

    template <typename Handle>
    mxlStatus eventCounters(char const* call, Handle handle, char const* what, mxlFabricsEventCounters* counters)
    {
        return guard(call,
                     [&]
                     {
                         require(handle, what);
                         requireStructSize(counters, "out_counters");
                         *counters = handle->events.counters();
                     });
    }
}

extern "C"
{
    mxlStatus mxlFabricsTargetSetEventHandler(mxlFabricsTarget in_target, uint32_t in_type, mxlFabricsEventHandler in_handler,
                                              void* in_userData)
    {
        return setEventHandler(__func__, in_target, "the target", in_type, in_handler, in_userData);
    }

    mxlStatus mxlFabricsTargetStartEvents(mxlFabricsTarget in_target, size_t in_queueCapacity, int* out_fd)
    {
        return startEvents(__func__, in_target, "the target", out_fd,
                           [&] { return in_target->events.start(in_target->target, in_queueCapacity); });
    }

    mxlStatus mxlFabricsTargetDispatchEvents(mxlFabricsTarget in_target, uint16_t in_timeoutMs, size_t* out_dispatched)
    {
        return dispatchEvents(__func__, in_target, "the target", in_timeoutMs, out_dispatched);
    }

    mxlStatus mxlFabricsTargetEmitEvent(mxlFabricsTarget in_target, mxlFabricsEvent const* in_event)
    {
        return emitEvent(__func__, in_target, "the target", in_event);
    }

    mxlStatus mxlFabricsTargetStopEvents(mxlFabricsTarget in_target)
    {
        return stopEvents(__func__, in_target, "the target");
    }

    mxlStatus mxlFabricsTargetGetEventCounters(mxlFabricsTarget in_target, mxlFabricsEventCounters* out_counters)
    {
        return eventCounters(__func__, in_target, "the target", out_counters);
    }

    mxlStatus mxlFabricsInitiatorSetEventHandler(mxlFabricsInitiator in_initiator, uint32_t in_type,
                                                 mxlFabricsInitiatorEventHandler in_handler, void* in_userData)
    {
        return setEventHandler(__func__, in_initiator, "the initiator", in_type, in_handler, in_userData);
    }

    mxlStatus mxlFabricsInitiatorStartEvents(mxlFabricsInitiator in_initiator, size_t in_queueCapacity, int* out_fd)
    {
        return startEvents(__func__, in_initiator, "the initiator", out_fd, [&] { return in_initiator->events.start(in_queueCapacity); });
    }

    mxlStatus mxlFabricsInitiatorDispatchEvents(mxlFabricsInitiator in_initiator, uint16_t in_timeoutMs, size_t* out_dispatched)
    {
        return dispatchEvents(__func__, in_initiator, "the initiator", in_timeoutMs, out_dispatched);
    }

    mxlStatus mxlFabricsInitiatorEmitEvent(mxlFabricsInitiator in_initiator, mxlFabricsEvent const* in_event)
    {
        return emitEvent(__func__, in_initiator, "the initiator", in_event);
    }

    mxlStatus mxlFabricsInitiatorStopEvents(mxlFabricsInitiator in_initiator)
    {
        return stopEvents(__func__, in_initiator, "the initiator");
    }

    mxlStatus mxlFabricsInitiatorGetEventCounters(mxlFabricsInitiator in_initiator, mxlFabricsEventCounters* out_counters)
    {
        return eventCounters(__func__, in_initiator, "the initiator", out_counters);
    }
}
