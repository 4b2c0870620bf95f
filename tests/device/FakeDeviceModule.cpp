// Fake device modules (libmxl-cuda.so built as FAKE_<behaviour>): shared host memory stands in for device memory, so
// that libmxl's whole device-flow path (loading, options, the `device` record, payload pointers, IPC handles between
// processes, refusals) runs on machines without a GPU. An allocation is a memfd; its "IPC handle" names the exporting
// process and the descriptor, which another process of the same user opens through /proc/<pid>/fd. Like CUDA, a
// handle cannot be imported in the process that exported it. Copies accept as device memory only what lies inside an
// allocation or import of the module; ABI 1.1's streams are tokens the module hands out, and a call with a token it did
// not create (or created for another device) fails, so that a caller mixing up streams fails its test; the asynchronous
// copies are done at once.
//   FAKE_WORKING    MXL_FAKE_DEVICE_COUNT devices (default 1); device d has PCI bus id 0000:<MXL_FAKE_BUS_BASE + d>:00.0
//                   (hex, base 0x17 by default), so that a test can make the writer's GPU vanish for a reader
//   FAKE_NO_DRIVER  the device count fails as cudaGetDeviceCount does without a driver
//   FAKE_ABI2       a table of device module ABI 2.0
//   FAKE_ABI10      a working module whose table stops where ABI 1.0's did (structSize), as one built before 1.1
//   FAKE_NO_ENTRY   no entry symbol
#include "common/device_module.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace
{
    thread_local char lastErrorText[256] = "";

    __attribute__((format(printf, 1, 2))) int failWith(char const* format, ...)
    {
        va_list arguments;
        va_start(arguments, format);
        std::vsnprintf(lastErrorText, sizeof lastErrorText, format, arguments);
        va_end(arguments);
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

    // What munmap and close need for each mapping this process made, allocated or imported.
    struct Mapping
    {
        int fd;
        size_t bytes;
    };

    std::mutex mappingsMutex;
    std::map<void*, Mapping> mappings;

    void* mapShared(int fd, size_t bytes)
    {
        auto* const pointer = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (pointer == MAP_FAILED)
        {
            return nullptr;
        }
        std::lock_guard lock{mappingsMutex};
        mappings[pointer] = {fd, bytes};
        return pointer;
    }

    int unmap(void* pointer)
    {
        std::lock_guard lock{mappingsMutex};
        auto const found = mappings.find(pointer);
        if (found == mappings.end())
        {
            return failWith("fake: no mapping at that address");
        }
        ::munmap(pointer, found->second.bytes);
        ::close(found->second.fd);
        mappings.erase(found);
        return 0;
    }

    // Maps `bytes` of the descriptor `fd` (-1 when there is none; closed when the mapping fails) at *pointer: 0, or the
    // module's error `failure`.
    int mapOrFail(int fd, size_t bytes, void** pointer, char const* failure)
    {
        if (fd < 0 || (*pointer = mapShared(fd, bytes)) == nullptr)
        {
            if (fd >= 0)
            {
                ::close(fd);
            }
            return failWith("%s", failure);
        }
        return 0;
    }

    // Zeroed like the real module's: ftruncate gives a memfd zero pages.
    int allocate(int, size_t bytes, void** pointer)
    {
        *pointer = nullptr;
        auto fd = ::memfd_create("mxl-fake-device-ring", MFD_CLOEXEC);
        if (fd >= 0 && ::ftruncate(fd, static_cast<off_t>(bytes)) != 0)
        {
            ::close(fd);
            fd = -1;
        }
        return mapOrFail(fd, bytes, pointer, "fake cudaMalloc: memfd_create, ftruncate or mmap failed");
    }

    int release(int, void* pointer)
    {
        return unmap(pointer);
    }

    // The handle: the exporting process id, the descriptor and the size.
    struct Handle
    {
        int pid;
        int fd;
        size_t bytes;
    };
    static_assert(sizeof(Handle) <= MXL_DEVICE_IPC_HANDLE_BYTES);

    int exportHandle(int, void* pointer, uint8_t handle[MXL_DEVICE_IPC_HANDLE_BYTES])
    {
        std::lock_guard lock{mappingsMutex};
        auto const found = mappings.find(pointer);
        if (found == mappings.end())
        {
            return failWith("fake cudaIpcGetMemHandle: not an allocation of this module");
        }
        Handle const exported{::getpid(), found->second.fd, found->second.bytes};
        std::memset(handle, 0, MXL_DEVICE_IPC_HANDLE_BYTES);
        std::memcpy(handle, &exported, sizeof exported);
        return 0;
    }

    int importHandle(int, uint8_t const handle[MXL_DEVICE_IPC_HANDLE_BYTES], void** pointer)
    {
        *pointer = nullptr;
        Handle imported{};
        std::memcpy(&imported, handle, sizeof imported);
        if (imported.pid == ::getpid())
        {
            return failWith(
                "fake cudaIpcOpenMemHandle: a handle cannot be opened in the process that exported it (cudaErrorInvalidContext)");
        }
        auto const path = "/proc/" + std::to_string(imported.pid) + "/fd/" + std::to_string(imported.fd);
        return mapOrFail(::open(path.c_str(), O_RDWR | O_CLOEXEC), imported.bytes, pointer,
                         "fake cudaIpcOpenMemHandle: the exporting process's memory cannot be opened (cudaErrorMapBufferObjectFailed)");
    }

    int closeImport(int, void* pointer)
    {
        return unmap(pointer);
    }

    // Whether [pointer, pointer + bytes) lies inside one allocation or import of this module: the "device" side of a
    // copy must, as a CUDA copy fails on a host pointer passed as device memory.
    bool isDeviceMemory(void const* pointer, size_t bytes)
    {
        std::lock_guard lock{mappingsMutex};
        auto const address = reinterpret_cast<uintptr_t>(pointer);
        for (auto const& [base, mapping] : mappings)
        {
            auto const begin = reinterpret_cast<uintptr_t>(base);
            if (address >= begin && address - begin <= mapping.bytes && bytes <= mapping.bytes - (address - begin))
            {
                return true;
            }
        }
        return false;
    }

    // `what` names the runtime call the copy stands for; `deviceSide` is its destination or source.
    int copy(char const* what, int device, void* destination, void const* source, size_t bytes, void const* deviceSide)
    {
        if (!isDeviceMemory(deviceSide, bytes))
        {
            return failWith("fake %s on CUDA device %d: %zu bytes at %p are not device memory of this module (cudaErrorInvalidValue)", what,
                            device, bytes, deviceSide);
        }
        std::memcpy(destination, source, bytes);
        return 0;
    }

    int copyToDevice(int device, void* destination, void const* source, size_t bytes)
    {
        return copy("cudaMemcpy host to device", device, destination, source, bytes, destination);
    }

    int copyToHost(int device, void* destination, void const* source, size_t bytes)
    {
        return copy("cudaMemcpy device to host", device, destination, source, bytes, source);
    }

    // Pinned host memory: page-aligned as cudaHostAlloc's, zeroed, and remembered so that a release of anything else
    // fails as cudaFreeHost does.
    std::mutex hostMutex;
    std::set<void*> hostAllocations;

    int hostAllocate(size_t bytes, void** pointer)
    {
        constexpr size_t pageBytes = 4096;
        // aligned_alloc wants a whole number of alignments, and a distinct pointer even for no bytes.
        auto const rounded = (std::max<size_t>(bytes, 1) + pageBytes - 1) / pageBytes * pageBytes;
        *pointer = std::aligned_alloc(pageBytes, rounded);
        if (*pointer == nullptr)
        {
            return failWith("fake cudaHostAlloc of %zu bytes: out of memory (cudaErrorMemoryAllocation)", bytes);
        }
        std::memset(*pointer, 0, bytes);
        std::lock_guard lock{hostMutex};
        hostAllocations.insert(*pointer);
        return 0;
    }

    int hostRelease(void* pointer)
    {
        std::lock_guard lock{hostMutex};
        if (hostAllocations.erase(pointer) == 0)
        {
            return failWith("fake cudaFreeHost: %p is not pinned memory of this module (cudaErrorInvalidValue)", pointer);
        }
        std::free(pointer);
        return 0;
    }

    // A stream is a token (a small allocation, so that each is a distinct non-null address) and the device it was
    // created on; a token this module did not create, or created on another device, is refused by every stream call.
    std::mutex streamsMutex;
    std::map<void*, int> streams;

    int streamCreate(int device, void** stream)
    {
        *stream = new char{};
        std::lock_guard lock{streamsMutex};
        streams[*stream] = device;
        return 0;
    }

    bool isStreamOf(int device, void* stream)
    {
        std::lock_guard lock{streamsMutex};
        auto const found = streams.find(stream);
        return found != streams.end() && found->second == device;
    }

    int foreignStream(char const* what, int device, void* stream)
    {
        return failWith("fake %s on CUDA device %d: stream %p was not created by this module on that device "
                        "(cudaErrorInvalidResourceHandle)",
                        what, device, stream);
    }

    int streamDestroy(int device, void* stream)
    {
        if (!isStreamOf(device, stream))
        {
            return foreignStream("cudaStreamDestroy", device, stream);
        }
        {
            std::lock_guard lock{streamsMutex};
            streams.erase(stream);
        }
        delete static_cast<char*>(stream);
        return 0;
    }

    // The copy is done at once: nothing is asynchronous in host memory, but the stream must still be one of ours.
    int copyToDeviceAsync(int device, void* destination, void const* source, size_t bytes, void* stream)
    {
        char const* const what = "cudaMemcpyAsync host to device";
        return isStreamOf(device, stream) ? copy(what, device, destination, source, bytes, destination)
                                          : foreignStream(what, device, stream);
    }

    int copyToHostAsync(int device, void* destination, void const* source, size_t bytes, void* stream)
    {
        char const* const what = "cudaMemcpyAsync device to host";
        return isStreamOf(device, stream) ? copy(what, device, destination, source, bytes, source) : foreignStream(what, device, stream);
    }

    int streamSynchronize(int device, void* stream)
    {
        return isStreamOf(device, stream) ? 0 : foreignStream("cudaStreamSynchronize", device, stream);
    }

    char const* lastError()
    {
        return lastErrorText;
    }

#if defined(FAKE_ABI2)
    constexpr uint32_t abiVersion = 2u << 16;
    constexpr uint32_t tableBytes = sizeof(mxlDeviceModule);
#elif defined(FAKE_ABI10)
    constexpr uint32_t abiVersion = 1u << 16;
    constexpr uint32_t tableBytes = offsetof(mxlDeviceModule, host_allocate);
#else
    constexpr uint32_t abiVersion = MXL_DEVICE_MODULE_ABI_VERSION;
    constexpr uint32_t tableBytes = sizeof(mxlDeviceModule);
#endif

    constexpr mxlDeviceModule table{
        tableBytes,    abiVersion,     &deviceCount,       &deviceProperties, &allocate,          &release,      &exportHandle,
        &importHandle, &closeImport,   &copyToDevice,      &copyToHost,       &lastError,         &hostAllocate, &hostRelease,
        &streamCreate, &streamDestroy, &copyToDeviceAsync, &copyToHostAsync,  &streamSynchronize,
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
