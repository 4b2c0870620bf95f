// libmxl's view of the device module (device_module.h): found and loaded on the first device-flow request, never
// before, so that a host-only program never maps the CUDA runtime. Each call turns the module's failure into an
// mxl::Error carrying the runtime's words.
#pragma once

#include "common/device_module.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxl::device
{
    using IpcHandle = std::array<std::uint8_t, MXL_DEVICE_IPC_HANDLE_BYTES>;

    class Module
    {
    public:
        Module(mxlDeviceModule const& table, std::string path);

        [[nodiscard]] std::string const& path() const noexcept
        {
            return _path;
        }

        // Fails with MXL_ERR_UNSUPPORTED_OPERATION and the runtime's words where there is no driver or no device.
        [[nodiscard]] int deviceCount() const;
        [[nodiscard]] mxlDeviceProperties properties(int device) const;
        [[nodiscard]] void* allocate(int device, std::size_t bytes) const;
        void release(int device, void* pointer) const;
        [[nodiscard]] IpcHandle exportHandle(int device, void* pointer) const;
        [[nodiscard]] void* importHandle(int device, IpcHandle const& handle) const;
        void closeImport(int device, void* pointer) const;
        void copyToDevice(int device, void* destination, void const* source, std::size_t bytes) const;
        void copyToHost(int device, void* destination, void const* source, std::size_t bytes) const;

        // ABI 1.1, staging through host memory: pinned (page-locked) host buffers, zeroed; a non-blocking stream per
        // user; copies queued on it, complete only once streamSynchronize returns.
        [[nodiscard]] void* hostAllocate(std::size_t bytes) const;
        void hostRelease(void* pointer) const;
        [[nodiscard]] void* streamCreate(int device) const;
        void streamDestroy(int device, void* stream) const;
        void copyToDeviceAsync(int device, void* destination, void const* source, std::size_t bytes, void* stream) const;
        void copyToHostAsync(int device, void* destination, void const* source, std::size_t bytes, void* stream) const;
        void streamSynchronize(int device, void* stream) const;

        // The module's own table, for code that calls it without libmxl's classes (FlowMemory::deviceModule).
        [[nodiscard]] mxlDeviceModule const& table() const noexcept
        {
            return *_table;
        }

    private:
        [[noreturn]] void failWith(char const* what) const;

        mxlDeviceModule const* _table;
        std::string _path;
    };

    // The environment variable whose directories (colon separated) are searched before the one beside libmxl.
    inline constexpr char const* modulePathVariable = "MXL_DEVICE_MODULE_PATH";
    inline constexpr char const* moduleFileName = "libmxl-cuda.so";

    // The module, loaded on the first successful call and kept for the life of the process; thread-safe. A failure
    // is not remembered: the next device flow tries again (a module installed meanwhile is found). Fails with
    // MXL_ERR_UNSUPPORTED_OPERATION naming the file(s) and the reason: a build without CUDA, no file, a file the
    // dynamic loader refuses, no entry, another ABI or a failing entry.
    [[nodiscard]] Module const& loadedModule();

    // Where loadedModule() looks, in order.
    [[nodiscard]] std::vector<std::string> moduleSearchDirectories();
}
