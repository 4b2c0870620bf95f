/* Status codes, versions and the mxl instance: the entry point of every media function. */
#pragma once

#ifdef __cplusplus
#    include <cstdint>
extern "C"
{
#else
#    include <stdbool.h>
#    include <stdint.h>
#endif

#include <mxl/platform.h>

    typedef enum mxlStatus
    {
        MXL_STATUS_OK = 0,
        MXL_ERR_UNKNOWN = 1,
        MXL_ERR_FLOW_NOT_FOUND = 2,
        MXL_ERR_OUT_OF_RANGE_TOO_LATE = 3,
        MXL_ERR_OUT_OF_RANGE_TOO_EARLY = 4,
        MXL_ERR_INVALID_FLOW_READER = 5,
        MXL_ERR_INVALID_FLOW_WRITER = 6,
        MXL_ERR_TIMEOUT = 7,
        MXL_ERR_INVALID_ARG = 8,
        MXL_ERR_CONFLICT = 9,
        MXL_ERR_PERMISSION_DENIED = 10,
        MXL_ERR_FLOW_INVALID = 11,

        /* The fabrics block. */
        MXL_ERR_STRLEN = 1024,
        MXL_ERR_INTERRUPTED = 1025,
        MXL_ERR_NO_FABRIC = 1026,
        MXL_ERR_INVALID_STATE = 1027,
        MXL_ERR_INTERNAL = 1028,
        MXL_ERR_NOT_READY = 1029,
        MXL_ERR_NOT_FOUND = 1030,
        MXL_ERR_EXISTS = 1031,
        MXL_ERR_UNSUPPORTED_OPERATION = 1032,
    } mxlStatus;

    typedef struct mxlVersionType
    {
        uint16_t major;
        uint16_t minor;
        uint16_t bugfix;
        uint16_t build;
        /* Owned by the library; valid for the life of the process. */
        char const* full;
    } mxlVersionType;

    typedef struct mxlInstance_t* mxlInstance;

    MXL_EXPORT mxlStatus mxlGetVersion(mxlVersionType* out_version);

    /*
     * Opens the domain directory (it must exist; put it on tmpfs). Returns NULL when the domain cannot be used; the reason
     * is logged. `in_options` is reserved: it may be NULL or a JSON object.
     */
    MXL_EXPORT mxlInstance mxlCreateInstance(char const* in_mxlDomain, char const* in_options);

    /* Removes every flow of the domain whose writers are all gone (crashed or exited without releasing). */
    MXL_EXPORT mxlStatus mxlGarbageCollectFlows(mxlInstance in_instance);

    /* Tells whether `in_path` is on tmpfs or ramfs, where flows belong. */
    MXL_EXPORT mxlStatus mxlIsTmpFs(char const* in_path, bool* out_isTmpFs);

    /* Releases every reader and writer still held, deleting the flows this process was the last writer of. */
    MXL_EXPORT mxlStatus mxlDestroyInstance(mxlInstance in_instance);

#ifdef __cplusplus
}
#endif
