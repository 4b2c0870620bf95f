/*
 * An extension of this implementation, not part of the MXL SDK's fabrics API: which transport backends this host has
 * and which one an instance uses. A backend is a module, libmxl-fabrics-<name>.so ("ofi": libfabric, the SDK's wire;
 * "ucx": UCX), found in each directory of MXL_FABRICS_BACKEND_PATH (colon separated), then in mxl-fabrics/ beside
 * libmxl-fabrics.so, then in the install directory; an instance chooses one by its options ({"backend": "ucx"}), else
 * by the environment's MXL_FABRICS_BACKEND, else "ofi" (docs/fabrics-backends.md).
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

    typedef struct mxlFabricsBackendInfo_t
    {
        /* The file is libmxl-fabrics-<name>.so. */
        char const* name;
        /* The file it was (or would be) loaded from. */
        char const* path;
        /* The backend ABI it implements, major << 16 | minor; 0 in a list from mxlFabricsGetBackends (not loaded). */
        uint32_t abiVersion;
    } mxlFabricsBackendInfo;

    /* The instance's backend; the strings live as long as the process. */
    MXL_EXPORT mxlStatus mxlFabricsGetBackendInfo(mxlFabricsInstance in_instance, mxlFabricsBackendInfo* out_info);

    typedef struct mxlFabricsBackendList_t
    {
        mxlFabricsBackendInfo* backends;
        size_t count;
    } mxlFabricsBackendList;

    /*
     * Every backend module in the search path, in search order, the first file of each name (the one an instance of that
     * name loads). Nothing is loaded: creating an instance with {"backend": name} loads one and says why it cannot.
     * Free with mxlFabricsFreeBackendList; the strings live as long as the list.
     */
    MXL_EXPORT mxlStatus mxlFabricsGetBackends(mxlFabricsBackendList** out_list);
    MXL_EXPORT mxlStatus mxlFabricsFreeBackendList(mxlFabricsBackendList* in_list);

#ifdef __cplusplus
}
#endif
