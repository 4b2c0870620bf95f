/*
 * An extension of this implementation, not part of the MXL SDK's fabrics API: the connection state and counters of each
 * target an initiator was given, so that a service can tell "still connecting" from "target gone, reconnecting", say
 * why, and say which target missed how many transfers.
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

    typedef enum mxlFabricsTargetState_t
    {
        /* Added; no connection attempt has been made yet. */
        MXL_FABRICS_TARGET_NOT_CONNECTED = 0,
        /* A connection attempt is under way (connection-oriented providers). */
        MXL_FABRICS_TARGET_CONNECTING = 1,
        /* Transfers are posted to this target. */
        MXL_FABRICS_TARGET_CONNECTED = 2,
        /* The connection failed or was lost; the initiator retries with back-off (100 ms doubling to 3 s). */
        MXL_FABRICS_TARGET_DISCONNECTED = 3,
    } mxlFabricsTargetState;

    /*
     * The state of the target of `in_targetInfo` (matched by its id) in `in_initiator`. For DISCONNECTED, `out_reason`
     * receives why (otherwise an empty string); the size protocol is that of mxlFabricsProviderToString: a NULL
     * `out_reason` sets `*inout_reasonSize` to the size needed including the NUL, a short buffer gives MXL_ERR_STRLEN.
     * `out_reason` and `inout_reasonSize` may both be NULL to ask only for the state. MXL_ERR_NOT_FOUND when the target
     * was never added or was removed.
     */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorGetTargetState(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo,
                                                           mxlFabricsTargetState* out_state, char* out_reason, size_t* inout_reasonSize);

    /* What an initiator did for one target since the target was added. */
    typedef struct mxlFabricsTargetCounters_t
    {
        /* Transfers (whole grains, slice ranges or sample batches) posted to this target. */
        uint64_t transfersPosted;
        /*
         * Transfers this target missed: it was not connected, or it was lagging (its writes had waited more than 100 ms
         * for a completion, as a stopped or overloaded target process makes them, while another target kept up), so
         * that it would not hold back the other targets. A lagging target takes transfers again as soon as its writes
         * complete; after 1 s without a completion it counts as disconnected.
         */
        uint64_t transfersSkipped;
        /* Connections established after the first (the target restarted, or the network came back). */
        uint64_t reconnects;
        /* 1 while the target is lagging, else 0. */
        uint32_t lagging;
        /*
         * Transfers never committed as valid at this target because their source changed before the target had read
         * them (the target fell a whole source ring behind): a grain is committed there with MXL_GRAIN_FLAG_INVALID and
         * no valid slices, a sample batch is never committed. Counted in transfersPosted too. (A transfer that could not
         * be posted whole is reported by the NOT_READY of its call instead.) Held in what was a reserved field, so the
         * struct keeps its 32 bytes; it wraps after 2^32.
         */
        uint32_t transfersInvalidated;
    } mxlFabricsTargetCounters;

    /*
     * The counters of the target of `in_targetInfo` (matched by its id) in `in_initiator`. MXL_ERR_NOT_FOUND when the
     * target was never added or was removed.
     */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorGetTargetCounters(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo,
                                                              mxlFabricsTargetCounters* out_counters);

    /*
     * How a target screened connection requests: TargetSetup's option "allowInitiators" (an array of addresses and
     * prefixes, "198.51.100.0/24", "2001:db8::/32" or "192.0.2.7") admits only initiators whose address lies in one of
     * them. A refused request is rejected before the transport makes an endpoint for it, so the initiator reaches none
     * of the target's memory; it sees its connection refused and retries as for a target that is down. Each refused
     * address is logged once (at warn). {"admissionKeyFile": "<ticket key file>"} in the options of both TargetSetup and
     * InitiatorSetup: the initiator proves in each connection request that it holds the key (an HMAC over the target's
     * id and epoch), and the target refuses requests without a proof that verifies, counted here too (an extension:
     * MXL SDK peers neither send nor check it). tcp and verbs targets only: shm and efa targets, and those of the ucx
     * backend, receive no connection requests, and their setup with either option fails with MXL_ERR_INVALID_ARG.
     */
    typedef struct mxlFabricsAdmissionCounters_t
    {
        /* Connection requests admitted and refused since the target was created (over all its setups). */
        uint64_t admitted;
        uint64_t refused;
        /* Distinct addresses refused (counted up to 1024); each is logged once per reason. */
        uint64_t refusedAddresses;
    } mxlFabricsAdmissionCounters;

    /* Any thread may ask, while another drives the target. All zero for a target set up without either option. */
    MXL_EXPORT mxlStatus mxlFabricsTargetGetAdmissionCounters(mxlFabricsTarget in_target, mxlFabricsAdmissionCounters* out_counters);

    /*
     * The initiators connected to a target (tcp and verbs targets of the ofi backend; zero elsewhere, where the transport
     * reports no connections). A ticket is for one initiator: a second one that connects while the first is connected
     * (the same ticket used twice) writes into the same ring, and the grains of the two interleave. The target logs each
     * such connection at warn, naming both initiators' addresses; a first initiator whose connection died without the
     * target hearing of it (a cut link) counts as connected until the transport notices.
     */
    typedef struct mxlFabricsConnectionCounters_t
    {
        /* Set by the caller to sizeof(mxlFabricsConnectionCounters); the library sets it to the size it filled. */
        uint32_t structSize;
        uint32_t reserved;
        /* Initiators connected now (to the current setup). */
        uint64_t connected;
        /* Connections that came up while another initiator was connected, since the target was created (over all its
           setups). */
        uint64_t joinedWhileConnected;
    } mxlFabricsConnectionCounters;

    /* Any thread may ask, while another drives the target. MXL_ERR_INVALID_ARG for a structSize smaller than this
       header's first version of the struct. */
    MXL_EXPORT mxlStatus mxlFabricsTargetGetConnectionCounters(mxlFabricsTarget in_target, mxlFabricsConnectionCounters* out_counters);

#ifdef __cplusplus
}
#endif
