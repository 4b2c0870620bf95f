/*
 * An extension of this implementation, not part of the MXL SDK's fabrics API: a target tells the application what
 * arrived through typed events, so that the application waits in its own poll/epoll loop instead of a thread spinning
 * on mxlFabricsTargetReadGrain. An initiator tells it, the same way, when its targets come and go and when the
 * transfers of its batches (fabrics_batch.h) settle: see mxlFabricsInitiatorStartEvents below.
 *
 * While events are started, the target is read as ReadGrain/ReadSamples read it (that read also progresses tcp and
 * shm, which move bytes only while the target reads): each arrival is published to local readers and told by an event.
 * Who reads depends on the transport. Where it has a wait descriptor (tcp and verbs, and UCX's tcp), the event descriptor also polls
 * readable when the transport has work, and mxlFabricsTargetDispatchEvents reads the arrivals itself, on the calling
 * thread, and runs their handlers: no thread of the library is involved, and the target progresses as the application
 * dispatches. Elsewhere (shm) a library thread reads the target and queues the events, and the descriptor is
 * readable while events wait to be dispatched. Either way DispatchEvents runs the handlers on the calling thread, in
 * order, and no event is dropped: when the queue is full, the library thread stops reading arrivals until the
 * application dispatches (see mxlFabricsEventCounters), and a dispatch that reads the target itself reads at most a
 * queue's worth of arrivals per call. MXL_FABRICS_TARGET_EVENT_THREAD=1 in the environment asks for the library thread
 * on every transport.
 *
 * Threads: handlers may be set and events emitted from any thread. Start, stop, dispatch, setup, destroy and the Read
 * calls belong to the thread that drives the target, as every other call of fabrics.h does.
 */
#pragma once

#ifdef __cplusplus
#    include <cstddef>
#    include <cstdint>
extern "C"
{
#else
#    include <stddef.h>
#    include <stdint.h>
#endif

#include <mxl/fabrics.h>

    typedef enum mxlFabricsEventType_t
    {
        /* A grain (or a slice range of it) arrived and was published: `grain`. One event per transfer, so a grain sent in
           slice ranges arrives as several events of one index with growing validSlices. */
        MXL_FABRICS_EVENT_GRAIN_ARRIVED = 1,
        /* A batch of samples arrived and was committed to the flow: `samples`. */
        MXL_FABRICS_EVENT_SAMPLES_ARRIVED = 2,
        /* A grain or sample batch was overwritten by a later transfer before the target read it (ReadGrain's
           MXL_ERR_OUT_OF_RANGE_TOO_LATE): it is lost, later ones are not. `problem` says which slot or entry. */
        MXL_FABRICS_EVENT_ARRIVAL_LOST = 3,
        /* Connection-oriented providers (tcp, verbs) only: an initiator connected or went away, `connection`. shm and
           efa have no connections: a target there cannot see initiators come or go, and never queues these. Only changes
           while events are started are reported: connections made before StartEvents give no CONNECTED event. */
        MXL_FABRICS_EVENT_INITIATOR_CONNECTED = 4,
        MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED = 5,
        /* Reading arrivals failed (`problem`): the reading has stopped and no further arrival is told. Stop events
           (and set the target up again) to go on. */
        MXL_FABRICS_EVENT_TARGET_FAILED = 6,
        /* The target was set up again since its events last started, so the ticket initiators hold is void and a new one
           (new id and epoch) must reach them: `epoch`. Queued first when events start on the new ticket, so that the
           handler that republishes tickets need not be told by the code that set the target up. Not queued for the first
           setup, whose ticket TargetSetup itself returned, nor when events restart on the same ticket. */
        MXL_FABRICS_EVENT_EPOCH_CHANGED = 7,
        /* The initiator's events (mxlFabricsInitiatorStartEvents), queued by its progress calls. A target it was given
           connected, or lost its connection (`target`; shm counts a target as connected once its probe write completed, and
           as lost when its writes stop completing). Failed reconnection attempts are not reported again. */
        MXL_FABRICS_EVENT_TARGET_CONNECTED = 0x101,
        MXL_FABRICS_EVENT_TARGET_DISCONNECTED = 0x102,
        /* Every target of one transfer of a batch (include/mxl/fabrics_batch.h) settled: all completed, or at least one
           failed (`transfer`). */
        MXL_FABRICS_EVENT_TRANSFER_COMPLETED = 0x103,
        MXL_FABRICS_EVENT_TRANSFER_FAILED = 0x104,
        /* Every transfer of a submitted batch settled (`batch`), queued right after the last TRANSFER_ event of the batch. */
        MXL_FABRICS_EVENT_BATCH_COMPLETED = 0x105,
        /* Types from here to UINT32_MAX belong to the application (mxlFabricsTargetEmitEvent, `user`); the library never
           queues them. Types below are the library's: new ones may be added, and applications cannot emit them. */
        MXL_FABRICS_EVENT_USER = 0x10000,
    } mxlFabricsEventType;

#define MXL_FABRICS_EVENT_TEXT_SIZE 128

    typedef struct mxlFabricsGrainArrival_t
    {
        uint64_t index;
        /* Slices [0, validSlices) of the grain are in the target's flow; validSlices == totalSlices for a whole grain. */
        uint16_t validSlices;
        uint16_t totalSlices;
        /* The grain's header flags: MXL_GRAIN_FLAG_INVALID for a grain the source marked invalid, or one whose source
           changed before it was read (then with no valid slices; docs/fabrics.md, "Read safety"). */
        uint32_t flags;
    } mxlFabricsGrainArrival;

    typedef struct mxlFabricsSamplesArrival_t
    {
        /* The batch holds the `count` samples ending at headIndex (the flow API's inclusive-end convention). */
        uint64_t headIndex;
        uint64_t count;
    } mxlFabricsSamplesArrival;

    typedef struct mxlFabricsConnectionChange_t
    {
        /* Numbers this target's connections from 1, so that a DISCONNECTED event can be paired with its CONNECTED one. */
        uint64_t connectionId;
        /* DISCONNECTED: why ("the initiator closed the connection", or the provider's error), NUL-terminated and cut to
           fit. CONNECTED: empty. */
        char reason[MXL_FABRICS_EVENT_TEXT_SIZE];
    } mxlFabricsConnectionChange;

    typedef struct mxlFabricsEventProblem_t
    {
        /* What ReadGrain/ReadSamples would have returned. */
        mxlStatus status;
        /* The library's log text for it, NUL-terminated and cut to fit. */
        char text[MXL_FABRICS_EVENT_TEXT_SIZE];
    } mxlFabricsEventProblem;

    typedef struct mxlFabricsEpochChange_t
    {
        /* The id and epoch of the ticket now in force (mxlFabricsTargetInfo, the "id" and "epoch" keys). */
        uint64_t targetId;
        uint64_t epoch;
        /* Those of the ticket it replaced: initiators still writing under it have lost their target. */
        uint64_t previousTargetId;
        uint64_t previousEpoch;
    } mxlFabricsEpochChange;

    typedef struct mxlFabricsTargetChange_t
    {
        /* The id of the target's ticket (mxlFabricsTargetInfo). */
        uint64_t targetId;
        /* DISCONNECTED: why, NUL-terminated and cut to fit (the reason mxlFabricsInitiatorGetTargetState gives). CONNECTED:
           empty. */
        char reason[MXL_FABRICS_EVENT_TEXT_SIZE];
    } mxlFabricsTargetChange;

/* Smaller than MXL_FABRICS_EVENT_TEXT_SIZE so that the union keeps its size; mxlFabricsBatchGetTargetStatus has it whole. */
#define MXL_FABRICS_EVENT_TRANSFER_TEXT_SIZE 108

    typedef struct mxlFabricsTransferOutcome_t
    {
        /* The batch (mxlFabricsBatch) and the transfer's index in it. */
        uint64_t batch;
        /* FAILED: the first of the transfer's targets that failed; COMPLETED: 0. */
        uint64_t targetId;
        uint32_t transfer;
        uint32_t targetsCompleted;
        uint32_t targetsFailed;
        /* FAILED: why that target failed, NUL-terminated and cut to fit; COMPLETED: empty. */
        char reason[MXL_FABRICS_EVENT_TRANSFER_TEXT_SIZE];
    } mxlFabricsTransferOutcome;

    typedef struct mxlFabricsBatchOutcome_t
    {
        uint64_t batch;
        uint32_t transfers;
        uint32_t transfersCompleted;
        uint32_t transfersFailed;
    } mxlFabricsBatchOutcome;

    typedef struct mxlFabricsUserEvent_t
    {
        /* Carried unchanged from the emitter to the handler; the library never looks at them. */
        uint64_t value;
        void* pointer;
    } mxlFabricsUserEvent;

    typedef struct mxlFabricsEvent_t
    {
        /* An emitter sets sizeof(mxlFabricsEvent). Fields are only ever added at the end: handlers get the library's size,
           with the fields an older emitter did not know zeroed. */
        uint32_t structSize;
        /* An mxlFabricsEventType, or a type >= MXL_FABRICS_EVENT_USER. */
        uint32_t type;
        /* The member that `type` names; user types use `user`. */
        union
        {
            mxlFabricsGrainArrival grain;
            mxlFabricsSamplesArrival samples;
            mxlFabricsConnectionChange connection;
            mxlFabricsEventProblem problem;
            mxlFabricsUserEvent user;
            mxlFabricsTargetChange target;
            mxlFabricsTransferOutcome transfer;
            mxlFabricsBatchOutcome batch;
            mxlFabricsEpochChange epoch;
        };
    } mxlFabricsEvent;

    /*
     * Runs on the thread that called mxlFabricsTargetDispatchEvents; `in_event` is valid only during the call. A handler
     * may emit events, set handlers (its own included) and read the target's flow; it must not dispatch, stop events, set
     * the target up or destroy it (those calls fail with MXL_ERR_INVALID_STATE).
     */
    typedef void (*mxlFabricsEventHandler)(mxlFabricsTarget in_target, mxlFabricsEvent const* in_event, void* in_userData);

    /*
     * Sets the one handler of `in_type` (a library type or a user type), replacing the previous one; a NULL handler
     * removes it. Events of a type without a handler are dispatched (and counted) without running anything. Handlers
     * belong to the target and survive StopEvents and setup; a replacement takes effect from the next event dispatched.
     * MXL_ERR_INVALID_ARG for a type that is neither.
     */
    MXL_EXPORT mxlStatus mxlFabricsTargetSetEventHandler(mxlFabricsTarget in_target, uint32_t in_type, mxlFabricsEventHandler in_handler,
                                                         void* in_userData);

    /*
     * Starts the events of a set-up target and returns, in `out_fd`, a descriptor that polls readable (POLLIN,
     * EPOLLIN, level-triggered) while undispatched events are queued, and, where the dispatch reads the target itself,
     * while the transport has work: a dispatch may then run no handler (NOT_READY with a zero timeout), and the next
     * poll waits again. Do not read it or close it: dispatching resets it, StopEvents closes it (take it out of an epoll
     * set before). `in_queueCapacity` is how many undispatched events the queue holds (0: 1024; at most 65536). While
     * events are started, ReadGrain and ReadSamples of this target fail with MXL_ERR_INVALID_STATE: the events do the
     * reading. MXL_ERR_INVALID_STATE when the target is not set up or its events are started already.
     */
    MXL_EXPORT mxlStatus mxlFabricsTargetStartEvents(mxlFabricsTarget in_target, size_t in_queueCapacity, int* out_fd);

    /*
     * Runs the handlers of the events queued when it starts (or, if there are none, of those that arrive within
     * `in_timeoutMs`), in queue order; where it reads the target itself, then those of the arrivals there are, and a
     * wake of the transport that brought no event ends the wait early (NOT_READY). An event emitted by a handler is dispatched in this same call, right after the
     * handler that emitted it returns and before the next queued event; several such events run in the order they were
     * emitted. `out_dispatched` counts every event dispatched, emitted ones included. MXL_ERR_NOT_READY when none came
     * in time; MXL_ERR_INVALID_STATE when events are not started or the call comes from a handler.
     */
    MXL_EXPORT mxlStatus mxlFabricsTargetDispatchEvents(mxlFabricsTarget in_target, uint16_t in_timeoutMs, size_t* out_dispatched);

    /*
     * Queues an event of a user type (`structSize` and `type` set, `user` as the application likes); it wakes the
     * descriptor like an arrival. From inside a handler it is dispatched in the current dispatch call (see
     * DispatchEvents). MXL_ERR_NOT_READY when the queue is full (the event is not queued and counted in emitsRefused);
     * MXL_ERR_INVALID_ARG for a library type or a structSize below the first version's; MXL_ERR_INVALID_STATE when events
     * are not started.
     */
    MXL_EXPORT mxlStatus mxlFabricsTargetEmitEvent(mxlFabricsTarget in_target, mxlFabricsEvent const* in_event);

    /*
     * Stops the reading (and joins the library thread, if any), drops the events not dispatched yet and closes the
     * descriptor; the target stays set up and ReadGrain works again. Nothing to do when events are not started. Setting
     * the target up again and destroying it stop its events first. Dispatch with a zero timeout before stopping to run
     * what is still queued.
     */
    MXL_EXPORT mxlStatus mxlFabricsTargetStopEvents(mxlFabricsTarget in_target);

    /* How the queue has fared since StartEvents. */
    typedef struct mxlFabricsEventCounters_t
    {
        /* Set by the caller to sizeof(mxlFabricsEventCounters) (a smaller value is refused); the library sets it to the size
           it filled, which is smaller for a caller built against a newer header. */
        uint32_t structSize;
        /* The capacity StartEvents gave the queue. */
        uint32_t queueCapacity;
        /* Events queued: arrivals, connection changes, failures and user events emitted outside handlers. */
        uint64_t queued;
        /* Events dispatched, emitted ones included. */
        uint64_t dispatched;
        /* The most undispatched events the queue held at once. */
        uint64_t highWater;
        /*
         * Times the reading found the queue full (the library thread stopped reading arrivals until a dispatch made room;
         * a dispatch that reads the target kept the event waiting, in order, inside the library) (logged
         * at warn the first time). Nothing is lost at the target then, but its initiators see it as slow: past 100 ms
         * they skip it as lagging (docs/fabrics.md), and grains they overwrite meanwhile arrive as ARRIVAL_LOST or
         * flagged invalid. Dispatch more often, or start with a larger capacity, when this grows.
         */
        uint64_t fullWaits;
        /* EmitEvent calls refused with MXL_ERR_NOT_READY because the queue was full. */
        uint64_t emitsRefused;
    } mxlFabricsEventCounters;

    /* MXL_ERR_INVALID_STATE when events are not started. */
    MXL_EXPORT mxlStatus mxlFabricsTargetGetEventCounters(mxlFabricsTarget in_target, mxlFabricsEventCounters* out_counters);

    /*
     * The initiator's events. An initiator has no library thread: the application's progress calls (MakeProgress,
     * TransferGrain/TransferSamples, mxlFabricsBatchSubmit) are what move its data, so they are also what queue its
     * events; the descriptor polls readable from the progress call that queued one until a dispatch ran them all. An
     * application sleeping in poll() on it therefore still drives the initiator in between (MakeProgressBlocking with a
     * short timeout, or a poll timeout), as it would without events. Queueing never blocks a progress call: when the
     * queue is full, events wait inside the initiator, in order, and join the queue after the next dispatch (counted in
     * fullWaits). Every call, handlers and dispatch included, belongs to the thread that drives the initiator, except
     * SetEventHandler and EmitEvent, which may come from any thread.
     */
    typedef void (*mxlFabricsInitiatorEventHandler)(mxlFabricsInitiator in_initiator, mxlFabricsEvent const* in_event, void* in_userData);

    /*
     * As mxlFabricsTargetSetEventHandler, for the initiator's types (TARGET_CONNECTED to BATCH_COMPLETED) and user types.
     * A handler may emit events, set handlers, make progress, submit batches and read or free them; it must not dispatch,
     * stop events, set the initiator up or destroy it (MXL_ERR_INVALID_STATE). Events queued by a progress call made from
     * a handler are dispatched by the next dispatch call, after those queued before them.
     */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorSetEventHandler(mxlFabricsInitiator in_initiator, uint32_t in_type,
                                                            mxlFabricsInitiatorEventHandler in_handler, void* in_userData);

    /*
     * Starts queueing the initiator's events and returns the queue's descriptor (see mxlFabricsTargetStartEvents: level-
     * triggered, do not read or close it). The initiator need not be set up; its handlers and events survive setting it
     * up again. MXL_ERR_INVALID_STATE when started already.
     */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorStartEvents(mxlFabricsInitiator in_initiator, size_t in_queueCapacity, int* out_fd);

    /* As mxlFabricsTargetDispatchEvents. The wait does not progress the initiator: events come from its progress calls. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorDispatchEvents(mxlFabricsInitiator in_initiator, uint16_t in_timeoutMs, size_t* out_dispatched);

    /* As mxlFabricsTargetEmitEvent. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorEmitEvent(mxlFabricsInitiator in_initiator, mxlFabricsEvent const* in_event);

    /* Drops the undispatched events (those waiting inside the initiator too) and closes the descriptor. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorStopEvents(mxlFabricsInitiator in_initiator);

    /* As mxlFabricsTargetGetEventCounters; fullWaits counts the events that found the queue full and waited. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorGetEventCounters(mxlFabricsInitiator in_initiator, mxlFabricsEventCounters* out_counters);

#ifdef __cplusplus
}
#endif
