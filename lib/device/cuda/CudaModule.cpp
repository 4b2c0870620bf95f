// libmxl-cuda.so: the device-memory table (lib/common/device_module.h) over the CUDA runtime, linked statically so that
// the module needs nothing from the system but the driver (libcuda.so.1), which the runtime itself opens on first use.
// Each function that takes a device selects it first: the runtime's current device is per thread, and the caller's thread may
// have another one current for its own work, so every function puts it back.
#include "common/device_module.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

namespace
{
    thread_local char lastErrorText[512] = "";

    int failed(char const* what, int device, cudaError_t error)
    {
        std::snprintf(lastErrorText, sizeof lastErrorText, "%s on CUDA device %d: %s (%s)", what, device, cudaGetErrorString(error),
                      cudaGetErrorName(error));
        return static_cast<int>(error);
    }

    // Makes `device` current for the life of the object and restores the caller's device afterwards.
    class CurrentDevice
    {
    public:
        explicit CurrentDevice(int device)
            : _device{device}
        {
            if (auto const error = cudaGetDevice(&_previous); error != cudaSuccess)
            {
                _error = error;
                return;
            }
            _error = cudaSetDevice(device);
        }

        CurrentDevice(CurrentDevice const&) = delete;
        CurrentDevice& operator=(CurrentDevice const&) = delete;

        ~CurrentDevice()
        {
            if (_error == cudaSuccess && _previous != _device)
            {
                static_cast<void>(cudaSetDevice(_previous));
            }
        }

        [[nodiscard]] cudaError_t error() const noexcept
        {
            return _error;
        }

    private:
        int _device;
        int _previous = 0;
        cudaError_t _error = cudaSuccess;
    };

    // Runs `call` (returning a cudaError_t) with `device` current; `what` names the call in the error text.
    template <typename Call>
    int onDevice(int device, char const* what, Call const& call)
    {
        CurrentDevice const current{device};
        if (current.error() != cudaSuccess)
        {
            return failed("cudaSetDevice", device, current.error());
        }
        if (auto const error = call(); error != cudaSuccess)
        {
            return failed(what, device, error);
        }
        return 0;
    }

    int deviceCount(int* count)
    {
        if (auto const error = cudaGetDeviceCount(count); error != cudaSuccess)
        {
            *count = 0;
            std::snprintf(lastErrorText, sizeof lastErrorText, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(error),
                          cudaGetErrorName(error));
            return static_cast<int>(error);
        }
        return 0;
    }

    int deviceProperties(int device, mxlDeviceProperties* properties)
    {
        std::memset(properties, 0, sizeof *properties);
        cudaDeviceProp cuda{};
        if (auto const error = cudaGetDeviceProperties(&cuda, device); error != cudaSuccess)
        {
            return failed("cudaGetDeviceProperties", device, error);
        }
        if (auto const error = cudaDeviceGetPCIBusId(properties->pciBusId, sizeof properties->pciBusId, device); error != cudaSuccess)
        {
            return failed("cudaDeviceGetPCIBusId", device, error);
        }
        static_assert(sizeof cuda.uuid.bytes == MXL_DEVICE_UUID_BYTES);
        std::memcpy(properties->uuid, cuda.uuid.bytes, sizeof properties->uuid);
        // The runtime's name is up to 256 bytes; ours keeps the first 63 and the terminator memset left.
        static_assert(sizeof cuda.name > sizeof properties->name);
        std::memcpy(properties->name, cuda.name, sizeof properties->name - 1);
        properties->totalMemoryBytes = cuda.totalGlobalMem;
        return 0;
    }

    int allocate(int device, size_t bytes, void** pointer)
    {
        *pointer = nullptr;
        CurrentDevice const current{device};
        if (current.error() != cudaSuccess)
        {
            return failed("cudaSetDevice", device, current.error());
        }
        if (auto const error = cudaMalloc(pointer, bytes); error != cudaSuccess)
        {
            *pointer = nullptr;
            return failed("cudaMalloc", device, error);
        }
        if (auto const error = cudaMemset(*pointer, 0, bytes); error != cudaSuccess)
        {
            static_cast<void>(cudaFree(*pointer));
            *pointer = nullptr;
            return failed("cudaMemset", device, error);
        }
        // cudaMemset is asynchronous with respect to the host: the zeros must be there before a reader maps the memory.
        if (auto const error = cudaDeviceSynchronize(); error != cudaSuccess)
        {
            static_cast<void>(cudaFree(*pointer));
            *pointer = nullptr;
            return failed("cudaDeviceSynchronize", device, error);
        }
        return 0;
    }

    int release(int device, void* pointer)
    {
        return onDevice(device, "cudaFree", [&] { return cudaFree(pointer); });
    }

    int exportHandle(int device, void* pointer, uint8_t handle[MXL_DEVICE_IPC_HANDLE_BYTES])
    {
        static_assert(sizeof(cudaIpcMemHandle_t) == MXL_DEVICE_IPC_HANDLE_BYTES);
        return onDevice(device, "cudaIpcGetMemHandle",
                        [&]
                        {
                            cudaIpcMemHandle_t ipc{};
                            auto const error = cudaIpcGetMemHandle(&ipc, pointer);
                            if (error == cudaSuccess)
                            {
                                std::memcpy(handle, &ipc, sizeof ipc);
                            }
                            return error;
                        });
    }

    int importHandle(int device, uint8_t const handle[MXL_DEVICE_IPC_HANDLE_BYTES], void** pointer)
    {
        *pointer = nullptr;
        return onDevice(device, "cudaIpcOpenMemHandle",
                        [&]
                        {
                            cudaIpcMemHandle_t ipc{};
                            std::memcpy(&ipc, handle, sizeof ipc);
                            auto const error = cudaIpcOpenMemHandle(pointer, ipc, cudaIpcMemLazyEnablePeerAccess);
                            if (error != cudaSuccess)
                            {
                                *pointer = nullptr;
                            }
                            return error;
                        });
    }

    int closeImport(int device, void* pointer)
    {
        return onDevice(device, "cudaIpcCloseMemHandle", [&] { return cudaIpcCloseMemHandle(pointer); });
    }

    int copy(int device, void* destination, void const* source, size_t bytes, cudaMemcpyKind kind, char const* what)
    {
        CurrentDevice const current{device};
        if (current.error() != cudaSuccess)
        {
            return failed("cudaSetDevice", device, current.error());
        }
        if (auto const error = cudaMemcpy(destination, source, bytes, kind); error != cudaSuccess)
        {
            return failed(what, device, error);
        }
        // From pageable host memory cudaMemcpy returns once the runtime has taken the bytes, possibly before they reach the
        // device. The copy must be complete when this returns: the writer commits next, and readers in other processes
        // and the fabrics layer's staging copies (on a non-blocking stream of their own) read the payload without waiting
        // for this process's default stream.
        if (kind == cudaMemcpyHostToDevice)
        {
            if (auto const error = cudaStreamSynchronize(cudaStreamLegacy); error != cudaSuccess)
            {
                return failed("cudaStreamSynchronize after a copy to the device", device, error);
            }
        }
        return 0;
    }

    int copyToDevice(int device, void* destination, void const* source, size_t bytes)
    {
        return copy(device, destination, source, bytes, cudaMemcpyHostToDevice, "cudaMemcpy host to device");
    }

    int copyToHost(int device, void* destination, void const* source, size_t bytes)
    {
        return copy(device, destination, source, bytes, cudaMemcpyDeviceToHost, "cudaMemcpy device to host");
    }

    // Portable: the staging buffer is pinned for every device, not only the one current on the calling thread.
    int hostAllocate(size_t bytes, void** pointer)
    {
        *pointer = nullptr;
        if (auto const error = cudaHostAlloc(pointer, bytes, cudaHostAllocPortable); error != cudaSuccess)
        {
            *pointer = nullptr;
            std::snprintf(lastErrorText, sizeof lastErrorText, "cudaHostAlloc of %zu bytes: %s (%s)", bytes, cudaGetErrorString(error),
                          cudaGetErrorName(error));
            return static_cast<int>(error);
        }
        // cudaHostAlloc does not clear: a staging buffer must not send a previous owner's bytes across the fabric.
        std::memset(*pointer, 0, bytes);
        return 0;
    }

    int hostRelease(void* pointer)
    {
        if (auto const error = cudaFreeHost(pointer); error != cudaSuccess)
        {
            std::snprintf(lastErrorText, sizeof lastErrorText, "cudaFreeHost: %s (%s)", cudaGetErrorString(error), cudaGetErrorName(error));
            return static_cast<int>(error);
        }
        return 0;
    }

    int streamCreate(int device, void** stream)
    {
        *stream = nullptr;
        return onDevice(device, "cudaStreamCreateWithFlags",
                        [&]
                        {
                            cudaStream_t created = nullptr;
                            auto const error = cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking);
                            if (error == cudaSuccess)
                            {
                                *stream = created;
                            }
                            return error;
                        });
    }

    int streamDestroy(int device, void* stream)
    {
        return onDevice(device, "cudaStreamDestroy", [&] { return cudaStreamDestroy(static_cast<cudaStream_t>(stream)); });
    }

    int copyAsync(int device, void* destination, void const* source, size_t bytes, void* stream, cudaMemcpyKind kind, char const* what)
    {
        return onDevice(device, what, [&] { return cudaMemcpyAsync(destination, source, bytes, kind, static_cast<cudaStream_t>(stream)); });
    }

    int copyToDeviceAsync(int device, void* destination, void const* source, size_t bytes, void* stream)
    {
        return copyAsync(device, destination, source, bytes, stream, cudaMemcpyHostToDevice, "cudaMemcpyAsync host to device");
    }

    int copyToHostAsync(int device, void* destination, void const* source, size_t bytes, void* stream)
    {
        return copyAsync(device, destination, source, bytes, stream, cudaMemcpyDeviceToHost, "cudaMemcpyAsync device to host");
    }

    int streamSynchronize(int device, void* stream)
    {
        return onDevice(device, "cudaStreamSynchronize", [&] { return cudaStreamSynchronize(static_cast<cudaStream_t>(stream)); });
    }

    char const* lastError()
    {
        return lastErrorText;
    }

    constexpr mxlDeviceModule table{
        sizeof(mxlDeviceModule),
        MXL_DEVICE_MODULE_ABI_VERSION,
        &deviceCount,
        &deviceProperties,
        &allocate,
        &release,
        &exportHandle,
        &importHandle,
        &closeImport,
        &copyToDevice,
        &copyToHost,
        &lastError,
        &hostAllocate,
        &hostRelease,
        &streamCreate,
        &streamDestroy,
        &copyToDeviceAsync,
        &copyToHostAsync,
        &streamSynchronize,
    };
}

extern "C" __attribute__((visibility("default"))) int mxlDeviceModuleEntry(uint32_t abiVersion, mxlDeviceModule const** result)
{
    *result = &table;
    if ((abiVersion >> 16) != MXL_DEVICE_MODULE_ABI_MAJOR)
    {
        std::snprintf(lastErrorText, sizeof lastErrorText, "libmxl-cuda implements device module ABI %u.x, the loader asks for %u.%u",
                      MXL_DEVICE_MODULE_ABI_MAJOR, abiVersion >> 16, abiVersion & 0xffffu);
        return 1;
    }
    return 0;
}
