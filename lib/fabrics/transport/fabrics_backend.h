/*
 * What libmxl-fabrics needs from a transport, and nothing more. libmxl-fabrics holds the protocol (which bytes go where,
 * in which order, when a transfer may be committed), read safety, lagging and reconnection; a backend moves bytes.
 * The table is versioned: fields are only ever appended, so a host checks the major version and the table's size.
 */
#pragma once

#include <mxl/fabrics.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define MXL_FABRICS_BACKEND_ABI_MAJOR 1u
/* 1.1: mxlFabricsBackendHost.log; the entry's failure text. 1.2: transports (domain_open_transport). 1.3: device memory
 * (domain_open_device, memory_register_device). 1.4: admission of connection requests (target_screen_connections,
 * connection_open_with_data). 1.5: a target's wait descriptor (target_wait_descriptor, target_arm). */
#define MXL_FABRICS_BACKEND_ABI_MINOR 5u
#define MXL_FABRICS_BACKEND_ABI_VERSION ((MXL_FABRICS_BACKEND_ABI_MAJOR << 16) | MXL_FABRICS_BACKEND_ABI_MINOR)
/* The only symbol a backend exports. */
#define MXL_FABRICS_BACKEND_ENTRY_SYMBOL "mxlFabricsBackendEntry"

    typedef struct mxlFabricsBackendDomain_t* mxlFabricsBackendDomain;         /* one interface opened for one role */
    typedef struct mxlFabricsBackendMemory_t* mxlFabricsBackendMemory;         /* one registered range */
    typedef struct mxlFabricsBackendTarget_t* mxlFabricsBackendTarget;         /* where initiators write to */
    typedef struct mxlFabricsBackendInitiator_t* mxlFabricsBackendInitiator;   /* completion and event queues */
    typedef struct mxlFabricsBackendPeer_t* mxlFabricsBackendPeer;             /* a ticket as the transport knows it */
    typedef struct mxlFabricsBackendConnection_t* mxlFabricsBackendConnection; /* a live path to a peer */

    /* Bytes owned by whoever produced them; valid for as long as the object that produced them. */
    typedef struct mxlFabricsBackendBlob_t
    {
        uint8_t const* bytes;
        size_t size;
    } mxlFabricsBackendBlob;

    typedef enum mxlFabricsBackendRole_t
    {
        MXL_FABRICS_BACKEND_TARGET = 0,
        MXL_FABRICS_BACKEND_INITIATOR = 1,
    } mxlFabricsBackendRole;

/* Domain flags: facts the protocol plans with. */
/* No handshake: the core confirms a path by a one-byte write (the probe) and reports OK when an initiator has no
 * targets. Without it the backend reports ESTABLISHED/FAILED/CLOSED_BY_PEER events. */
#define MXL_FABRICS_BACKEND_CONNECTIONLESS (1u << 0)
/* Writes on one connection are placed at the target in posting order: payload writes may complete when read. */
#define MXL_FABRICS_BACKEND_ORDERED_WRITES (1u << 1)
/* initiator_wait sleeps in the kernel. Without it the core polls and pauses itself. */
#define MXL_FABRICS_BACKEND_CAN_WAIT (1u << 2)

    /* How a domain moves the bytes of a write (1.2). Backends of ABI 1.1 carry RMA only. */
    typedef enum mxlFabricsBackendTransport_t
    {
        MXL_FABRICS_BACKEND_TRANSPORT_AUTO = 0, /* asked only: RMA where the interface has it, else MSG */
        MXL_FABRICS_BACKEND_TRANSPORT_RMA = 1,  /* remote writes with remote CQ data */
        MXL_FABRICS_BACKEND_TRANSPORT_MSG = 2,  /* sends into receive buffers the target posted; the target places them */
    } mxlFabricsBackendTransport;

    typedef struct mxlFabricsBackendDomainInfo_t
    {
        uint32_t structSize;
        uint32_t flags;
        /* Longest single write; the core splits grain payloads (and clamps further by caps.maxMessageSize). */
        uint64_t maxMessageBytes;
        /* Most local segments in one write. */
        uint32_t maxGatherSegments;
        /* 1.2, set by domain_open_transport: the transport chosen (RMA or MSG), and why in words ("asked", or what the
         * interface lacks); the text lives as long as the domain. */
        uint32_t transport;
        char const* transportReason;
    } mxlFabricsBackendDomainInfo;

/* Memory access. */
#define MXL_FABRICS_BACKEND_LOCAL_SOURCE (1u << 0) /* read by this side's writes (initiator) */
#define MXL_FABRICS_BACKEND_REMOTE_WRITE (1u << 1) /* written by peers (target); published in the ticket */

    /* One region of a ticket: writes add their offset to `address` (a virtual address, or 0 for offset addressing). */
    typedef struct mxlFabricsBackendRemoteRegion_t
    {
        uint64_t address;
        uint64_t length;
        /* Any size. Exactly 8 bytes: a little-endian u64, the ticket's numeric "rkey" (libfabric); any other size travels
         * in the ticket as base64 "rkeyBlob" (UCX's packed rkey). */
        mxlFabricsBackendBlob key;
    } mxlFabricsBackendRemoteRegion;

    /* A local range; `memory` is the registration it lies in (NULL for the ranges a target is opened over). */
    typedef struct mxlFabricsBackendSegment_t
    {
        void const* base;
        size_t length;
        mxlFabricsBackendMemory memory;
    } mxlFabricsBackendSegment;

/* Write flags. */
/* The target reports `immediate` once this write's bytes are visible there. */
#define MXL_FABRICS_BACKEND_WRITE_IMMEDIATE (1u << 0)
/* Complete when the local bytes were read, not when delivered: only with ORDERED_WRITES, for payload writes. */
#define MXL_FABRICS_BACKEND_WRITE_COMPLETE_WHEN_READ (1u << 1)

    typedef struct mxlFabricsBackendWrite_t
    {
        mxlFabricsBackendSegment const* segments; /* landing back to back from remoteOffset */
        uint32_t segmentCount;                    /* 1..maxGatherSegments */
        uint32_t flags;
        uint32_t remoteRegion; /* index into the peer's regions: keys stay inside the backend */
        uint32_t immediate;
        uint64_t remoteOffset;
    } mxlFabricsBackendWrite;

    /* Exactly one per accepted write, unless its connection is closed first: lagging and stall detection count on it. */
    typedef struct mxlFabricsBackendCompletion_t
    {
        uint64_t context;
        mxlStatus status;   /* OK; INTERRUPTED when the peer is gone; else the fabrics API's status for the failure */
        char const* reason; /* failed only: the transport's words, valid until the next poll on this initiator */
    } mxlFabricsBackendCompletion;

    typedef enum mxlFabricsBackendEventType_t
    {
        MXL_FABRICS_BACKEND_ESTABLISHED = 1,
        MXL_FABRICS_BACKEND_FAILED = 2,         /* could not connect, or the connection broke: `reason` says why */
        MXL_FABRICS_BACKEND_CLOSED_BY_PEER = 3, /* the target shut the connection down in order */
    } mxlFabricsBackendEventType;

    typedef struct mxlFabricsBackendEvent_t
    {
        uint64_t context; /* the context given to connection_open */
        uint32_t type;
        char const* reason; /* valid until the next poll on this initiator */
    } mxlFabricsBackendEvent;

/* initiator_wait flags: some target is not connected yet, so wake for connection progress too. */
#define MXL_FABRICS_BACKEND_WAIT_CONNECTING (1u << 0)

    /* A target's report of an initiator's connection (connection-oriented backends only), from inside
     * target_next_arrival; `reason` (why it went away, NULL when it came up) lives during the call. */
    typedef void (*mxlFabricsBackendConnectionObserver)(void* user, uint64_t connectionId, int connected, char const* reason);

    /* 1.4: an initiator's request to connect, as the target's transport received it; lives during the admission call. */
    typedef struct mxlFabricsBackendConnectionRequest_t
    {
        /* The initiator's address as the transport saw it (a struct sockaddr); size 0 where the transport gives none. */
        mxlFabricsBackendBlob peerAddress;
        /* The request's private data (fi_connect's param); size 0: none. */
        mxlFabricsBackendBlob privateData;
    } mxlFabricsBackendConnectionRequest;

    /* 1.4: nonzero admits the request. Zero refuses it: the backend rejects it before it makes an endpoint for it, so
     * that none of the target's registered memory becomes reachable through it. Called from inside target_next_arrival,
     * on its thread. */
    typedef int (*mxlFabricsBackendAdmission)(void* user, mxlFabricsBackendConnectionRequest const* request);

    /*
     * Every function returns an mxlStatus. On failure last_error() gives the text (the host logs it once, with context).
     * INTERRUPTED with last_error() NULL: a signal ended a wait; not a failure, nothing to log. No C++ exception crosses.
     * One object is driven by one thread at a time, as the public API says.
     */
    typedef struct mxlFabricsBackend_t
    {
        /* These four fields stay where they are in every major version: a host reads them to refuse a backend. */
        uint32_t abiVersion; /* MXL_FABRICS_BACKEND_ABI_VERSION the backend was built with */
        uint32_t structSize; /* sizeof(mxlFabricsBackend) as the backend knows it; the host reads no field beyond it */
        char const* name;    /* names the file, libmxl-fabrics-<name>.so, and log lines */

        /* Text of the last failure on this thread; valid until the next call on this thread. */
        char const* (*last_error)(void);

        /* Emits one entry per usable interface that `query` (may be NULL) lets through; its strings live during the emit. */
        mxlStatus (*list_interfaces)(mxlFabricsInterfaceConfig const* query,
                                     void (*emit)(void* user, mxlFabricsInterfaceConfig const* entry), void* user);

        /* The host has checked provider, caps and node/service presence already (core/InterfaceChecks.hpp). */
        mxlStatus (*domain_open)(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, mxlFabricsBackendDomain* out_domain,
                                 mxlFabricsBackendDomainInfo* out_info);
        void (*domain_close)(mxlFabricsBackendDomain domain); /* after everything opened over it */

        /* `out_remote` (REMOTE_WRITE only, may be NULL) is what a ticket publishes; its key lives as long as the memory. */
        mxlStatus (*memory_register)(mxlFabricsBackendDomain domain, void const* base, size_t length, uint32_t access,
                                     mxlFabricsBackendMemory* out_memory, mxlFabricsBackendRemoteRegion* out_remote);
        void (*memory_deregister)(mxlFabricsBackendMemory memory);

        /* Registers `regions` for remote writes and accepts initiators for as long as the target lives. completionDepth 0:
         * the backend's default. targetId names the target in log lines. */
        mxlStatus (*target_open)(mxlFabricsBackendDomain domain, mxlFabricsBackendSegment const* regions, uint32_t regionCount,
                                 size_t completionDepth, uint64_t targetId, mxlFabricsBackendTarget* out_target);
        void (*target_close)(mxlFabricsBackendTarget target);
        /* Where initiators reach the target and the ticket's number for its format; valid as long as the target. */
        mxlStatus (*target_address)(mxlFabricsBackendTarget target, mxlFabricsBackendBlob* out_address, uint32_t* out_addressFormat);
        /* The registered regions as a ticket publishes them, in the order given; valid as long as the target. */
        mxlStatus (*target_regions)(mxlFabricsBackendTarget target, mxlFabricsBackendRemoteRegion const** out_regions, uint32_t* out_count);
        /* The immediate of the next completed transfer (*out_arrived 1), waiting up to timeoutMs (0: one pass). Every
         * completion one progress step produced is handed out before the transport is progressed again (read safety).
         * `observer` (may be NULL) hears of connections while it runs. */
        mxlStatus (*target_next_arrival)(mxlFabricsBackendTarget target, uint32_t timeoutMs, mxlFabricsBackendConnectionObserver observer,
                                         void* user, int* out_arrived, uint32_t* out_immediate);

        mxlStatus (*initiator_open)(mxlFabricsBackendDomain domain, size_t completionDepth, mxlFabricsBackendInitiator* out_initiator);
        void (*initiator_close)(mxlFabricsBackendInitiator initiator); /* after every connection and peer of it */
        /* Non-blocking; *out_count 0 or 1. Same batching rule as target_next_arrival. */
        mxlStatus (*initiator_poll_completion)(mxlFabricsBackendInitiator initiator, mxlFabricsBackendCompletion* out, uint32_t* out_count);
        /* Non-blocking; *out_count 0 or 1. CONNECTIONLESS backends report none. */
        mxlStatus (*initiator_poll_event)(mxlFabricsBackendInitiator initiator, mxlFabricsBackendEvent* out, uint32_t* out_count);
        /* CAN_WAIT only: sleeps until a completion or event may be ready, at most timeoutMs. What it took is returned by
         * the next polls, in order; *out_completion is 1 when that is a completion. INTERRUPTED on a signal. */
        mxlStatus (*initiator_wait)(mxlFabricsBackendInitiator initiator, uint32_t timeoutMs, uint32_t flags, int* out_completion);

        /* INVALID_ARG when this initiator cannot reach the address format. targetId names the target in texts. The
         * regions are copied. A peer outlives its connections: what the backend learns about it stays. */
        mxlStatus (*peer_open)(mxlFabricsBackendInitiator initiator, uint64_t targetId, mxlFabricsBackendBlob address,
                               uint32_t addressFormat, mxlFabricsBackendRemoteRegion const* regions, uint32_t regionCount,
                               mxlFabricsBackendPeer* out_peer);
        void (*peer_close)(mxlFabricsBackendPeer peer);

        /* Starts connecting (never blocks on the peer). NOT_READY with a reason when the backend knows the peer ended. */
        mxlStatus (*connection_open)(mxlFabricsBackendPeer peer, uint64_t context, mxlFabricsBackendConnection* out_connection);
        /* Tells the target an established connection is being closed. */
        void (*connection_shutdown)(mxlFabricsBackendConnection connection);
        /* Releases the path; completions of its writes may still come and carry their contexts. */
        void (*connection_close)(mxlFabricsBackendConnection connection);
        /* *out_ended: NULL while the peer may live, else why it has ended (valid until the next call on this thread). */
        mxlStatus (*connection_check)(mxlFabricsBackendConnection connection, char const** out_ended);
        /* *out_posted 0: the transmit queue is full (poll completions, try again). A failure: this connection takes no
         * more writes. */
        mxlStatus (*connection_write)(mxlFabricsBackendConnection connection, mxlFabricsBackendWrite const* write, uint64_t context,
                                      int* out_posted);

        /* 1.2: domain_open for a transport (mxlFabricsBackendTransport); out_info->transport says which one AUTO chose.
         * A transport the interface cannot carry: INVALID_ARG, naming the provider and what it lacks. Writes, their
         * completions and arrivals keep the contract above whichever transport carries them. */
        mxlStatus (*domain_open_transport)(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, uint32_t transport,
                                           mxlFabricsBackendDomain* out_domain, mxlFabricsBackendDomainInfo* out_info);

        /* 1.3: domain_open_transport for a domain that registers device memory as well as host memory. libfabric opens
         * it with FI_HMEM in its caps and FI_MR_HMEM in its mr_mode, which a domain of host flows never asks for.
         * UNSUPPORTED_OPERATION where the interface registers no device memory, naming the provider and why. */
        mxlStatus (*domain_open_device)(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, uint32_t transport,
                                        mxlFabricsBackendDomain* out_domain, mxlFabricsBackendDomainInfo* out_info);
        /* 1.3: memory_register for memory of CUDA device `cudaDevice` (an ordinal of this process), on a domain of
         * domain_open_device. UNSUPPORTED_OPERATION on any other domain; a refusal of the transport with its words. */
        mxlStatus (*memory_register_device)(mxlFabricsBackendDomain domain, void const* base, size_t length, uint32_t access,
                                            int cudaDevice, mxlFabricsBackendMemory* out_memory, mxlFabricsBackendRemoteRegion* out_remote);

        /* 1.4: the target asks `admission` about each connection request from now on (NULL: admits every one, as before
         * 1.4). UNSUPPORTED_OPERATION, with the backend's words, where its targets receive no connection requests. */
        mxlStatus (*target_screen_connections)(mxlFabricsBackendTarget target, mxlFabricsBackendAdmission admission, void* user);
        /* 1.4: connection_open whose request carries `requestData` (size 0: none) to the target's admission, as the private
         * data of the request. UNSUPPORTED_OPERATION for data where the backend's requests carry none. */
        mxlStatus (*connection_open_with_data)(mxlFabricsBackendPeer peer, uint64_t context, mxlFabricsBackendBlob requestData,
                                               mxlFabricsBackendConnection* out_connection);

        /* 1.5: a descriptor that polls readable (POLLIN) when target_next_arrival may have work (an arrival, a connection
         * request or change), once target_arm said it would; *out_fd -1 where the target has none (it must be polled, as
         * before 1.5). Owned by the target, valid as long as it. */
        mxlStatus (*target_wait_descriptor)(mxlFabricsBackendTarget target, int* out_fd);
        /* 1.5: called before waiting on the descriptor, after target_next_arrival found nothing or right after it gave an
         * arrival: *out_armed 1 when the descriptor will wake for the next work, 0 when work may be waiting already
         * (call target_next_arrival again), always 0 while anything the target has taken is not handed out. */
        mxlStatus (*target_arm)(mxlFabricsBackendTarget target, int* out_armed);
    } mxlFabricsBackend;

/* The table of ABI 1.0 and 1.1: the least a host accepts. */
#define MXL_FABRICS_BACKEND_TABLE_1_1_SIZE (offsetof(mxlFabricsBackend, domain_open_transport))
/* The table of ABI 1.2: served, but it registers no device memory. */
#define MXL_FABRICS_BACKEND_TABLE_1_2_SIZE (offsetof(mxlFabricsBackend, domain_open_device))
/* The table of ABI 1.3: served, but its targets admit every connection request. */
#define MXL_FABRICS_BACKEND_TABLE_1_3_SIZE (offsetof(mxlFabricsBackend, target_screen_connections))
/* The table of ABI 1.4: served, but its targets have no wait descriptor (events read them on a library thread). */
#define MXL_FABRICS_BACKEND_TABLE_1_4_SIZE (offsetof(mxlFabricsBackend, target_wait_descriptor))

    /* Levels of mxlFabricsBackendHost.log, in increasing severity. */
    typedef enum mxlFabricsBackendLogLevel_t
    {
        MXL_FABRICS_BACKEND_LOG_TRACE = 0,
        MXL_FABRICS_BACKEND_LOG_DEBUG = 1,
        MXL_FABRICS_BACKEND_LOG_INFO = 2,
        MXL_FABRICS_BACKEND_LOG_WARN = 3,
        MXL_FABRICS_BACKEND_LOG_ERROR = 4,
        MXL_FABRICS_BACKEND_LOG_CRITICAL = 5,
    } mxlFabricsBackendLogLevel;

    /* What the host gives a backend; fields are only ever appended, so a backend reads a field only when structSize
     * covers it. Valid for the life of the process. */
    typedef struct mxlFabricsBackendHost_t
    {
        uint32_t structSize;
        /* 1.1: where the backend's log lines go (one line, no newline, `message` lives during the call), so that they
         * reach the host's sink and filter and never interleave with the host's own lines. Any thread may call it. */
        void (*log)(uint32_t level, char const* message, size_t length);
    } mxlFabricsBackendHost;

    /* Checks hostAbiVersion (same major) and initialises the transport once per process. Never unloaded. On failure it
     * sets *out_backend, where it can, to its table so that the host reads the reason from last_error(). */
    typedef mxlStatus (*mxlFabricsBackendEntryFunction)(uint32_t hostAbiVersion, mxlFabricsBackendHost const* host,
                                                        mxlFabricsBackend const** out_backend);

    /* Exported by each backend module (its only export); the host finds it with dlsym. */
    MXL_EXPORT mxlStatus mxlFabricsBackendEntry(uint32_t hostAbiVersion, mxlFabricsBackendHost const* host,
                                                mxlFabricsBackend const** out_backend);

#ifdef __cplusplus
}
#endif
