/*
 * Fabrics: move flows between hosts. A target registers its flow's memory and publishes a TargetInfo ticket; an
 * initiator reads grains or samples from its local flow and writes them into the target by RMA (remote write with
 * immediate data). Every object is driven by one thread; progress happens only inside the target's Read* calls and
 * the initiator's MakeProgress* calls.
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

#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>

/* The value every `version` field must hold. */
#define MXL_FABRICS_API_VERSION 0
#define MXL_FABRICS_FLAG(n) (1 << (n))

    typedef struct mxlFabricsInstance_t* mxlFabricsInstance;
    typedef struct mxlFabricsTarget_t* mxlFabricsTarget;
    typedef struct mxlFabricsTargetInfo_t* mxlFabricsTargetInfo;
    typedef struct mxlFabricsInitiator_t* mxlFabricsInitiator;

    typedef enum mxlFabricsProvider_t
    {
        /* Only meaningful as a query. */
        MXL_FABRICS_PROVIDER_ANY = 0,
        MXL_FABRICS_PROVIDER_TCP = 1,
        MXL_FABRICS_PROVIDER_VERBS = 2,
        MXL_FABRICS_PROVIDER_EFA = 3,
        MXL_FABRICS_PROVIDER_SHM = 4,
    } mxlFabricsProvider;

    typedef enum mxlFabricsInterfaceCapFlags_t
    {
        MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS = MXL_FABRICS_FLAG(0),
        MXL_FABRICS_IFACE_CAP_REMOTE_WRITE = MXL_FABRICS_FLAG(1),
        MXL_FABRICS_IFACE_CAP_SEND_RECEIVE = MXL_FABRICS_FLAG(2),
        /* The interface can register device (CUDA) memory with the transport (libfabric: the provider has FI_HMEM). As
         * the MXL SDK's PR #654 names it. Reported only: setup does not require it. */
        MXL_FABRICS_IFACE_CAP_HMEM = MXL_FABRICS_FLAG(3),
    } mxlFabricsInterfaceCapFlags;

    typedef struct mxlFabricsEndpointAddress_t
    {
        /* IP address (tcp, verbs), GID (efa) or a name (shm). */
        char const* node;
        /* Port (tcp, verbs) or a name (shm). */
        char const* service;
    } mxlFabricsEndpointAddress;

    typedef struct mxlFabricsInterfaceCaps_t
    {
        int version;
        /* mxlFabricsInterfaceCapFlags: reported by GetInterfaces, required by setup. */
        uint64_t flags;
        /* Largest single write the interface takes; larger grains are split. */
        uint64_t maxMessageSize;
    } mxlFabricsInterfaceCaps;

    typedef struct mxlFabricsInterfaceConfig_t
    {
        int version;
        mxlFabricsProvider provider;
        mxlFabricsInterfaceCaps caps;
        mxlFabricsEndpointAddress address;
        /* Output only: a JSON object of provider attributes. */
        char const* attr;
    } mxlFabricsInterfaceConfig;

    typedef struct mxlFabricsInterfaceList_t mxlFabricsInterfaceList;

    struct mxlFabricsInterfaceList_t
    {
        mxlFabricsInterfaceList* next;
        mxlFabricsInterfaceConfig interface;
    };

    typedef struct mxlFabricsTargetConfig_t
    {
        int version;
        mxlFabricsInterfaceConfig interface;
        mxlFlowWriter writer;
    } mxlFabricsTargetConfig;

    typedef struct mxlFabricsInitiatorConfig_t
    {
        int version;
        mxlFabricsInterfaceConfig interface;
        mxlFlowReader reader;
    } mxlFabricsInitiatorConfig;

    /*
     * `options` is NULL or a JSON object: {"backend": "ofi"} names the transport (without it: the environment's
     * MXL_FABRICS_BACKEND, else "ofi"; include/mxl/fabrics_backends.h), loaded from
     * libmxl-fabrics-<name>.so in MXL_FABRICS_BACKEND_PATH, beside libmxl-fabrics.so in mxl-fabrics/, or the install
     * directory (docs/fabrics-backends.md). NO_FABRIC when it cannot be found, loaded or initialised, UNSUPPORTED_OPERATION
     * when it implements another backend ABI; the logged line names the file and why. The mxl instance must outlive the
     * fabrics instance.
     */
    MXL_EXPORT mxlStatus mxlFabricsCreateInstance(mxlInstance in_instance, char const* in_options, mxlFabricsInstance* out_instance);
    MXL_EXPORT mxlStatus mxlFabricsDestroyInstance(mxlFabricsInstance in_instance);

    /* Lists usable interfaces, filtered by `in_query`'s provider and node when it is not NULL. Free with FreeInterfaceList. */
    MXL_EXPORT mxlStatus mxlFabricsGetInterfaces(mxlFabricsInstance in_instance, mxlFabricsInterfaceConfig const* in_query,
                                                 mxlFabricsInterfaceList** out_list);
    MXL_EXPORT mxlStatus mxlFabricsFreeInterfaceList(mxlFabricsInterfaceList* in_list);

    MXL_EXPORT mxlStatus mxlFabricsCreateTarget(mxlFabricsInstance in_instance, mxlFabricsTarget* out_target);
    MXL_EXPORT mxlStatus mxlFabricsDestroyTarget(mxlFabricsInstance in_instance, mxlFabricsTarget in_target);

    /*
     * Registers the writer's flow memory and starts listening. `in_options` is NULL or a JSON object: {"cqDepth": n};
     * {"allowInitiators": ["198.51.100.0/24", ...]} admits only initiators from those addresses, {"admissionKeyFile": path}
     * only those that prove the ticket key (fabrics_state.h).
     * The returned ticket is freed with mxlFabricsFreeTargetInfo.
     */
    MXL_EXPORT mxlStatus mxlFabricsTargetSetup(mxlFabricsTarget in_target, mxlFabricsTargetConfig const* in_config, char const* in_options,
                                               mxlFabricsTargetInfo* out_info);

    /*
     * Waits for the next grain an initiator completed and publishes it to local readers. Returns its absolute index;
     * MXL_ERR_NOT_READY when none arrived in time.
     */
    MXL_EXPORT mxlStatus mxlFabricsTargetReadGrainNonBlocking(mxlFabricsTarget in_target, uint64_t* out_grainIndex);
    MXL_EXPORT mxlStatus mxlFabricsTargetReadGrain(mxlFabricsTarget in_target, uint16_t in_timeoutMs, uint64_t* out_grainIndex);

    /* As ReadGrain for audio: the samples (headIndex, count) arrived and are committed. */
    MXL_EXPORT mxlStatus mxlFabricsTargetReadSamplesNonBlocking(mxlFabricsTarget in_target, uint64_t* out_headIndex, size_t* out_count);
    MXL_EXPORT mxlStatus mxlFabricsTargetReadSamples(mxlFabricsTarget in_target, uint16_t in_timeoutMs, uint64_t* out_headIndex,
                                                     size_t* out_count);

    MXL_EXPORT mxlStatus mxlFabricsCreateInitiator(mxlFabricsInstance in_instance, mxlFabricsInitiator* out_initiator);
    MXL_EXPORT mxlStatus mxlFabricsDestroyInitiator(mxlFabricsInstance in_instance, mxlFabricsInitiator in_initiator);

    /* Registers the reader's flow memory. `in_options` is NULL or a JSON object: {"cqDepth": n}; {"admissionKeyFile": path}
     * proves the ticket key in every connection request (fabrics_state.h); {"incarnationMark": true} names the ticket's
     * target id and epoch in every connection request without a proof, so that a target restarted at the ticket's
     * address refuses a stale ticket (by default a ticket connects to whatever target comes back at its address). */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorSetup(mxlFabricsInitiator in_initiator, mxlFabricsInitiatorConfig const* in_config,
                                                  char const* in_options);

    /* Connection happens during MakeProgress; targets can be added and removed at any time. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorAddTarget(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo);
    MXL_EXPORT mxlStatus mxlFabricsInitiatorRemoveTarget(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo);

    /* Writes slices [startSlice, endSlice) of grain `in_grainIndex` (with the header when startSlice is 0) to every connected target. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorTransferGrain(mxlFabricsInitiator in_initiator, uint64_t in_grainIndex, uint16_t in_startSlice,
                                                          uint16_t in_endSlice);

    /* Writes the `in_count` samples ending at `in_headIndex` to every connected target. */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorTransferSamples(mxlFabricsInitiator in_initiator, uint64_t in_headIndex, size_t in_count);

    /*
     * OK when every target is connected and every write completed; MXL_ERR_NOT_READY while work is pending;
     * MXL_ERR_INTERRUPTED on a signal or when no target is left.
     */
    MXL_EXPORT mxlStatus mxlFabricsInitiatorMakeProgressNonBlocking(mxlFabricsInitiator in_initiator);
    MXL_EXPORT mxlStatus mxlFabricsInitiatorMakeProgressBlocking(mxlFabricsInitiator in_initiator, uint16_t in_timeoutMs);

    MXL_EXPORT mxlStatus mxlFabricsProviderFromString(char const* in_string, mxlFabricsProvider* out_provider);
    MXL_EXPORT mxlStatus mxlFabricsProviderToString(mxlFabricsProvider in_provider, char* out_string, size_t* in_stringSize);

    /* The ticket as compact JSON; the size protocol is that of ProviderToString (the size includes the NUL). */
    MXL_EXPORT mxlStatus mxlFabricsTargetInfoToString(mxlFabricsTargetInfo in_targetInfo, char* out_string, size_t* in_stringSize);
    MXL_EXPORT mxlStatus mxlFabricsTargetInfoFromString(char const* in_string, mxlFabricsTargetInfo* out_targetInfo);
    MXL_EXPORT mxlStatus mxlFabricsFreeTargetInfo(mxlFabricsTargetInfo in_info);

#ifdef __cplusplus
}
#endif
