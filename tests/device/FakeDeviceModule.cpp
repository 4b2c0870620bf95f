// Fake device modules (libmxl-cuda.so built as FAKE_<behaviour>): host memory stands in for device memory, so that
// libmxl's whole device-flow path (loading, options, the `device` record, payload pointers, refusals) runs on machines
// without a GPU. Like CUDA, a handle cannot be imported in the process that exported it; unlike CUDA, no handle can be
// imported in another process either (the tests of two processes need the real module and a GPU).
//   FAKE_WORKING    MXL_FAKE_DEVICE_COUNT devices (default 1); device d has PCI bus id 0000:<MXL_FAKE_BUS_BASE + d>:00.0
//                   (hex, base 0x17 by default), so that a test can make the writer's GPU vanish for a reader
//   FAKE_NO_DRIVER  the device count fails as cudaGetDeviceCount does without a driver
//   FAKE_ABI2       a table of device module ABI 2.0
//   FAKE_NO_ENTRY   no entry symbol
#include "device/device_module.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace
{
    thread_local char lastErrorText[256] = "";

    int failWith(char const* text)
    {
        std::snprintf(lastErrorText, sizeof lastErrorText, "%s", text);
        return 1;
    }

    int environmentNumber(char const* name, int fallback, int base)
    {
        auto const* value = std::getenv(name);
        return value != nullptr ? static_cast<int>(std::strtol(value, nullptr, base)) : fallback;
    }

    int deviceCount(int* count)
    {
#ifdef FAKE_NO_DRIVER
        *count = 0;
        return failWith("cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version (cudaErrorInsufficientDriver)");
#else
        *count = environmentNumber("MXL_FAKE_DEVICE_COUNT", 1, 10);
        return 0;
#endif
    }

    int deviceProperties(int device, mxlDeviceProperties* properties)
    {
        std::memset(properties, 0, sizeof *properties);
        std::snprintf(properties->pciBusId, sizeof properties->pciBusId, "0000:%02X:00.0",
                      environmentNumber("MXL_FAKE_BUS_BASE", 0x17, 16) + device);
        properties->uuid[0] = static_cast<uint8_t>(device);
        std::snprintf(properties->name, sizeof properties->name, "fake device %d", device);
        properties->totalMemoryBytes = 1u << 30;
        return 0;
    }

    int allocate(int, size_t bytes, void** pointer)
    {
        *pointer = std::calloc(1, bytes);
        return *pointer != nullptr ? 0 : failWith("fake allocation failed");
    }

    int release(int, void* pointer)
    {
        std::free(pointer);
        return 0;
    }

    // The handle: the pointer, then the exporting process id.
    int exportHandle(int, void* pointer, uint8_t handle[MXL_DEVICE_IPC_HANDLE_BYTES])
    {
        std::memset(handle, 0, MXL_DEVICE_IPC_HANDLE_BYTES);
        auto const pid = ::getpid();
        std::memcpy(handle, &pointer, sizeof pointer);
        std::memcpy(handle + sizeof pointer, &pid, sizeof pid);
        return 0;
    }

    int importHandle(int, uint8_t const[MXL_DEVICE_IPC_HANDLE_BYTES], void** pointer)
    {
        *pointer = nullptr;
        return failWith("fake cudaIpcOpenMemHandle: the fake module imports no handles (cudaErrorInvalidResourceHandle)");
    }

    int closeImport(int, void*)
    {
        return failWith("fake cudaIpcCloseMemHandle: nothing was imported");
    }

    int copy(int, void* destination, void const* source, size_t bytes)
    {
        std::memcpy(destination, source, bytes);
        return 0;
    }

    char const* lastError()
    {
        return lastErrorText;
    }

#ifdef FAKE_ABI2
    constexpr uint32_t abiVersion = 2u << 16;
#else
    constexpr uint32_t abiVersion = MXL_DEVICE_MODULE_ABI_VERSION;
#endif

    constexpr mxlDeviceModule table{
        sizeof(mxlDeviceModule),
        abiVersion,
        &deviceCount,
        &deviceProperties,
        &allocate,
        &release,
        &exportHandle,
        &importHandle,
        &closeImport,
        &copy,
        &copy,
        &lastError,
    };
}

#ifndef FAKE_NO_ENTRY
extern "C" __attribute__((visibility("default"))) int mxlDeviceModuleEntry(uint32_t, mxlDeviceModule const** result)
{
    *result = &table;
    return 0;
}
#else
// Keeps the table referenced, so that the module still has the code of a device module and only lacks its entry.
extern "C" __attribute__((visibility("default"))) mxlDeviceModule const* mxlFakeDeviceTable()
{
    return &table;
}
#endif
