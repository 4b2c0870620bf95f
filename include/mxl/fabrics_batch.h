/*
 * An extension of this implementation, not part of the MXL SDK's fabrics API: batches of transfers with a status per
 * transfer and per target, so that an application can post several grains, slice ranges and sample batches in one call
 * and learn which of them reached which target, how far each has got, and why one failed.
 *
 * A batch belongs to an initiator. Transfers are added to it (each to every target the initiator has then, or to one
 * of them), then the batch is submitted once: every transfer is posted as mxlFabricsInitiatorTransferGrain and
 * TransferSamples would post it, without blocking, and the initiator's progress calls (MakeProgress) move it on. A
 * transfer to one target COMPLETES when the target was told the data is there (its commit write completed); it FAILS
 * when the target was not connected or was lagging at submit, when a write to it failed or its connection was lost
 * before that, when the target was removed, or when the source changed before the data was read (the target then sees
 * the grain invalid, or never sees the samples). A transfer to several targets completes when all of them have, and
 * fails when any failed: its per-target status says which, and why. Failed transfers are not retried; the counters of
 * fabrics_state.h count batch transfers as they count TransferGrain's.
 *
 * Initiator events (fabrics_events.h) report each transfer when all its targets settled (TRANSFER_COMPLETED or
 * TRANSFER_FAILED) and each batch when all its transfers did (BATCH_COMPLETED).
 *
 * Lifetimes: a batch lives until it is freed, or its initiator destroyed; setting the initiator up again fails the
 * transfers still in flight but keeps the batches. A batch may be freed while its transfers are in flight: they go on
 * without it, and queue no further event. Batch ids are never reused by an initiator, so a freed batch's id is refused
 * with MXL_ERR_NOT_FOUND.
 *
 * Threads: every call belongs to the thread that drives the initiator, as every call of fabrics.h does.
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

    /* A batch of an initiator, numbered from 1. */
    typedef uint64_t mxlFabricsBatch;

    typedef enum mxlFabricsTransferState_t
    {
        /* Not submitted yet, or in flight. */
        MXL_FABRICS_TRANSFER_WAITING = 0,
        MXL_FABRICS_TRANSFER_COMPLETED = 1,
        MXL_FABRICS_TRANSFER_FAILED = 2,
    } mxlFabricsTransferState;

    MXL_EXPORT mxlStatus mxlFabricsInitiatorCreateBatch(mxlFabricsInitiator in_initiator, mxlFabricsBatch* out_batch);

    /*
     * Adds a transfer of slices [in_startSlice, in_endSlice) of grain `in_grainIndex` (the ranges of TransferGrain) to the
     * target of `in_target` (matched by its id), or with a NULL `in_target` to every target the initiator has now;
     * `out_transfer` receives its index in the batch, counted from 0. MXL_ERR_INVALID_ARG for a slice range out of the
     * grain; MXL_ERR_NOT_FOUND for a target that was not added (or, with NULL, when there is none) and for an unknown
     * batch; MXL_ERR_INVALID_STATE when the batch was submitted or the flow carries samples.
     */
    MXL_EXPORT mxlStatus mxlFabricsBatchAddGrain(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, mxlFabricsTargetInfo in_target,
                                                 uint64_t in_grainIndex, uint16_t in_startSlice, uint16_t in_endSlice,
                                                 uint32_t* out_transfer);

    /* As AddGrain, for the `in_count` samples per channel ending at `in_headIndex` (MXL_ERR_INVALID_ARG for 0 samples). */
    MXL_EXPORT mxlStatus mxlFabricsBatchAddSamples(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch,
                                                   mxlFabricsTargetInfo in_target, uint64_t in_headIndex, size_t in_count,
                                                   uint32_t* out_transfer);

    /*
     * Posts every transfer of the batch, in the order they were added, to each of its targets; never again. Returns OK
     * when every one was posted; otherwise the status the first failure would have given TransferGrain (NOT_READY for a
     * full transmit queue, INTERRUPTED for a lost connection...), every transfer being attempted all the same and the
     * failed ones FAILED. MXL_ERR_INVALID_STATE when the batch was submitted already, has no transfer, or the initiator is
     * not set up.
     */
    MXL_EXPORT mxlStatus mxlFabricsBatchSubmit(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch);

    typedef struct mxlFabricsTransferStatus_t
    {
        /* Set by the caller to sizeof(mxlFabricsTransferStatus) (a smaller value is refused). */
        uint32_t structSize;
        /* An mxlFabricsTransferState: COMPLETED once every target completed, FAILED once every target settled and one failed. */
        uint32_t state;
        /*
         * The flow's bytes (grain payload or samples, without the protocol's headers) whose writes completed, summed over
         * the targets: it never decreases, and equals bytesTotal once the transfer COMPLETED. On providers that order
         * writes (tcp, verbs) a payload write completes when it was read, and has landed once its transfer COMPLETED.
         */
        uint64_t bytesPlaced;
        /* What the targets posted to are to receive, set at submit: 0 for a target that was never posted to. */
        uint64_t bytesTotal;
        uint32_t targets;
        uint32_t targetsCompleted;
        uint32_t targetsFailed;
        uint32_t reserved;
    } mxlFabricsTransferStatus;

    /* MXL_ERR_NOT_FOUND for an unknown batch or transfer index. */
    MXL_EXPORT mxlStatus mxlFabricsBatchGetTransferStatus(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, uint32_t in_transfer,
                                                          mxlFabricsTransferStatus* out_status);

#define MXL_FABRICS_TRANSFER_REASON_SIZE 256

    typedef struct mxlFabricsTransferTargetStatus_t
    {
        /* Set by the caller to sizeof(mxlFabricsTransferTargetStatus) (a smaller value is refused). */
        uint32_t structSize;
        /* An mxlFabricsTransferState. */
        uint32_t state;
        /* The id of the target's ticket. */
        uint64_t targetId;
        uint64_t bytesPlaced;
        uint64_t bytesTotal;
        /* FAILED: why, naming the target, NUL-terminated and cut to fit; otherwise empty. */
        char reason[MXL_FABRICS_TRANSFER_REASON_SIZE];
    } mxlFabricsTransferTargetStatus;

    /*
     * The status of target `in_targetIndex` (0 to targets - 1, in the order the initiator was given them) of a transfer.
     * MXL_ERR_NOT_FOUND for an unknown batch, transfer or target index.
     */
    MXL_EXPORT mxlStatus mxlFabricsBatchGetTargetStatus(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, uint32_t in_transfer,
                                                        uint32_t in_targetIndex, mxlFabricsTransferTargetStatus* out_status);

    /* The same, for the target of `in_target` (matched by its id); MXL_ERR_NOT_FOUND when the transfer does not go to it. */
    MXL_EXPORT mxlStatus mxlFabricsBatchGetTargetStatusOf(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, uint32_t in_transfer,
                                                          mxlFabricsTargetInfo in_target, mxlFabricsTransferTargetStatus* out_status);

    typedef struct mxlFabricsBatchSummary_t
    {
        /* Set by the caller to sizeof(mxlFabricsBatchSummary) (a smaller value is refused). */
        uint32_t structSize;
        /* An mxlFabricsTransferState: COMPLETED once every transfer completed, FAILED once all settled and one failed. */
        uint32_t state;
        /* 1 once submitted. */
        uint32_t submitted;
        uint32_t transfers;
        uint32_t transfersCompleted;
        uint32_t transfersFailed;
        /* The sums of the transfers' bytesPlaced and bytesTotal. */
        uint64_t bytesPlaced;
        uint64_t bytesTotal;
    } mxlFabricsBatchSummary;

    /* MXL_ERR_NOT_FOUND for an unknown batch. */
    MXL_EXPORT mxlStatus mxlFabricsBatchGetSummary(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch,
                                                   mxlFabricsBatchSummary* out_summary);

    /* Frees the batch, in flight or not (see the lifetimes above). MXL_ERR_NOT_FOUND for an unknown or freed batch. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorFreeBatch(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch);

#ifdef __cplusplus
}
#endif
