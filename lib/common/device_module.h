/* The versioned C table of the device-memory module (libmxl-cuda.so). libmxl loads the module only when a flow asks for
 * device memory, resolves MXL_DEVICE_MODULE_ENTRY_SYMBOL by name and talks to the GPU runtime through this table alone,
 * so that neither libmxl nor a host-only program ever links or loads the CUDA runtime. docs/device-flows.md has the
 * contract. Every function returns 0 on success; on failure, a non-zero code and last_error() the runtime's words. */
#ifndef MXL_DEVICE_MODULE_H
#define MXL_DEVICE_MODULE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* A minor version adds functions at the end of the table; a major version changes what exists. */
#define MXL_DEVICE_MODULE_ABI_MAJOR 1u
#define MXL_DEVICE_MODULE_ABI_MINOR 1u
#define MXL_DEVICE_MODULE_ABI_VERSION ((MXL_DEVICE_MODULE_ABI_MAJOR << 16) | MXL_DEVICE_MODULE_ABI_MINOR)
#define MXL_DEVICE_MODULE_ENTRY_SYMBOL "mxlDeviceModuleEntry"

/* cudaIpcMemHandle_t is 64 opaque bytes; a PCI bus id "dddd:bb:dd.f" is 12 characters and its terminator. */
#define MXL_DEVICE_IPC_HANDLE_BYTES 64
#define MXL_DEVICE_PCI_BUS_ID_BYTES 32
#define MXL_DEVICE_UUID_BYTES 16
#define MXL_DEVICE_NAME_BYTES 64

    typedef struct mxlDeviceProperties
    {
        /* NUL terminated, as cudaDeviceGetPCIBusId writes it (upper-case hex). */
        char pciBusId[MXL_DEVICE_PCI_BUS_ID_BYTES];
        uint8_t uuid[MXL_DEVICE_UUID_BYTES];
        char name[MXL_DEVICE_NAME_BYTES];
        uint64_t totalMemoryBytes;
    } mxlDeviceProperties;

    typedef struct mxlDeviceModule
    {
        /* sizeof(mxlDeviceModule) as the module was built: a table shorter than the loader's is refused. */
        uint32_t structSize;
        uint32_t abiVersion;

        /* How many devices this process sees; fails where there is no driver or no device (cudaGetDeviceCount). */
        int (*device_count)(int* count);
        int (*device_properties)(int device, mxlDeviceProperties* properties);

        /* `bytes` of device memory on `device`, zeroed, so that no reader sees a previous owner's bytes. */
        int (*allocate)(int device, size_t bytes, void** pointer);
        int (*release)(int device, void* pointer);

        /* An IPC handle for memory this process allocated, and the mapping of another process's handle. A process
         * cannot import a handle it exported itself (the CUDA runtime refuses it). */
        int (*export_handle)(int device, void* pointer, uint8_t handle[MXL_DEVICE_IPC_HANDLE_BYTES]);
        int (*import_handle)(int device, uint8_t const handle[MXL_DEVICE_IPC_HANDLE_BYTES], void** pointer);
        int (*close_import)(int device, void* pointer);

        /* Synchronous copies, for tools and tests: fill a grain from a host pattern, copy a grain back to check it. */
        int (*copy_to_device)(int device, void* destination, void const* source, size_t bytes);
        int (*copy_to_host)(int device, void* destination, void const* source, size_t bytes);

        /* The calling thread's text of its last failure; valid until that thread's next call. */
        char const* (*last_error)(void);

        /* 1.1: staging a device flow's payloads through host memory for a transport that cannot register device memory. */
        /* `bytes` of page-locked (pinned) host memory, zeroed: a NIC can register it, and only a copy from or to
         * pinned memory is truly asynchronous (the driver stages pageable memory itself, synchronously). Portable
         * (cudaHostAlloc with cudaHostAllocPortable), so that copies on every device may use it. */
        int (*host_allocate)(size_t bytes, void** pointer);
        int (*host_release)(void* pointer);
        /* A stream of its own on `device` for the staging copies, non-blocking so that it never waits for the
         * application's work on the legacy default stream (cudaStreamCreateWithFlags, cudaStreamNonBlocking). */
        int (*stream_create)(int device, void** stream);
        int (*stream_destroy)(int device, void* stream);
        /* Queue a copy on `stream` and return at once (cudaMemcpyAsync): a transport overlaps the copy of one grain
         * with the transfer of another. `source` (to device) or `destination` (to host) should be pinned host memory;
         * neither buffer may be touched until stream_synchronize returns. */
        int (*copy_to_device_async)(int device, void* destination, void const* source, size_t bytes, void* stream);
        int (*copy_to_host_async)(int device, void* destination, void const* source, size_t bytes, void* stream);
        /* Waits for every copy queued on `stream` (cudaStreamSynchronize); a copy's failure may surface only here. */
        int (*stream_synchronize)(int device, void* stream);
    } mxlDeviceModule;

    /* The entry: `abiVersion` is the loader's; on success *table points to a table that lives as long as the module. */
    typedef int (*mxlDeviceModuleEntryFunction)(uint32_t abiVersion, mxlDeviceModule const** table);

#ifdef __cplusplus
}
#endif

#endif
