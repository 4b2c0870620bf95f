#include "device/DeviceModule.hpp"

#include "common/ModuleEntry.hpp"
#include "common/ModuleSearch.hpp"
#include "common/Status.hpp"

#include <cstdlib>
#include <memory>
#include <mutex>

namespace mxl::device
{
    namespace
    {
        std::string variableText()
        {
            auto const* value = std::getenv(modulePathVariable);
            return value != nullptr ? value : "unset";
        }

        Module enter(std::string const& path)
        {
            auto* symbol = modules::entryPoint(path, MXL_DEVICE_MODULE_ENTRY_SYMBOL, MXL_ERR_UNSUPPORTED_OPERATION, "the device module");
            auto const entry = reinterpret_cast<mxlDeviceModuleEntryFunction>(symbol);
            mxlDeviceModule const* table = nullptr;
            if (auto const code = entry(MXL_DEVICE_MODULE_ABI_VERSION, &table); code != 0)
            {
                auto const* reason = table != nullptr ? table->last_error() : nullptr;
                fail(MXL_ERR_UNSUPPORTED_OPERATION, "the device module {} failed to initialise: {}", path,
                     reason != nullptr ? std::string{reason} : fmt::format("code {} and no reason", code));
            }
            if (table == nullptr)
            {
                fail(MXL_ERR_UNSUPPORTED_OPERATION, "the device module {} returned no table from {}", path, MXL_DEVICE_MODULE_ENTRY_SYMBOL);
            }
            if ((table->abiVersion >> 16) != MXL_DEVICE_MODULE_ABI_MAJOR)
            {
                fail(MXL_ERR_UNSUPPORTED_OPERATION, "the device module {} implements device module ABI {}.{}, this libmxl needs {}.x", path,
                     table->abiVersion >> 16, table->abiVersion & 0xffffu, MXL_DEVICE_MODULE_ABI_MAJOR);
            }
            if (table->structSize < sizeof(mxlDeviceModule))
            {
                fail(MXL_ERR_UNSUPPORTED_OPERATION,
                     "the device module {} has a table of {} bytes (ABI {}.{}), this libmxl needs at least {} (ABI {}.{})", path,
                     table->structSize, table->abiVersion >> 16, table->abiVersion & 0xffffu, sizeof(mxlDeviceModule),
                     MXL_DEVICE_MODULE_ABI_MAJOR, MXL_DEVICE_MODULE_ABI_MINOR);
            }
            return Module{*table, path};
        }
    }

    Module::Module(mxlDeviceModule const& table, std::string path)
        : _table{&table}
        , _path{std::move(path)}
    {
    }

    void Module::failWith(char const* what) const
    {
        auto const* reason = _table->last_error();
        fail(MXL_ERR_UNKNOWN, "{} failed: {}", what, reason != nullptr && *reason != '\0' ? reason : "(no reason given)");
    }

    int Module::deviceCount() const
    {
        int count = 0;
        if (_table->device_count(&count) != 0)
        {
            auto const* reason = _table->last_error();
            fail(MXL_ERR_UNSUPPORTED_OPERATION, "no usable CUDA device: {}", reason != nullptr ? reason : "(no reason given)");
        }
        return count;
    }

    mxlDeviceProperties Module::properties(int device) const
    {
        mxlDeviceProperties properties{};
        if (_table->device_properties(device, &properties) != 0)
        {
            failWith("reading the device's properties");
        }
        // A module must terminate its texts; a broken one must not make us read past the array.
        properties.pciBusId[sizeof properties.pciBusId - 1] = '\0';
        properties.name[sizeof properties.name - 1] = '\0';
        return properties;
    }

    void* Module::allocate(int device, std::size_t bytes) const
    {
        void* pointer = nullptr;
        if (_table->allocate(device, bytes, &pointer) != 0 || pointer == nullptr)
        {
            failWith("allocating device memory");
        }
        return pointer;
    }

    void Module::release(int device, void* pointer) const
    {
        if (_table->release(device, pointer) != 0)
        {
            failWith("releasing device memory");
        }
    }

    IpcHandle Module::exportHandle(int device, void* pointer) const
    {
        IpcHandle handle{};
        if (_table->export_handle(device, pointer, handle.data()) != 0)
        {
            failWith("exporting an IPC handle");
        }
        return handle;
    }

    void* Module::importHandle(int device, IpcHandle const& handle) const
    {
        void* pointer = nullptr;
        if (_table->import_handle(device, handle.data(), &pointer) != 0 || pointer == nullptr)
        {
            failWith("opening the writer's IPC handle");
        }
        return pointer;
    }

    void Module::closeImport(int device, void* pointer) const
    {
        if (_table->close_import(device, pointer) != 0)
        {
            failWith("closing an imported IPC handle");
        }
    }

    void Module::copyToDevice(int device, void* destination, void const* source, std::size_t bytes) const
    {
        if (_table->copy_to_device(device, destination, source, bytes) != 0)
        {
            failWith("copying to the device");
        }
    }

    void Module::copyToHost(int device, void* destination, void const* source, std::size_t bytes) const
    {
        if (_table->copy_to_host(device, destination, source, bytes) != 0)
        {
            failWith("copying from the device");
        }
    }

    void* Module::hostAllocate(std::size_t bytes) const
    {
        void* pointer = nullptr;
        if (_table->host_allocate(bytes, &pointer) != 0 || pointer == nullptr)
        {
            failWith("allocating pinned host memory");
        }
        return pointer;
    }

    void Module::hostRelease(void* pointer) const
    {
        if (_table->host_release(pointer) != 0)
        {
            failWith("releasing pinned host memory");
        }
    }

    void* Module::streamCreate(int device) const
    {
        void* stream = nullptr;
        if (_table->stream_create(device, &stream) != 0 || stream == nullptr)
        {
            failWith("creating a stream");
        }
        return stream;
    }

    void Module::streamDestroy(int device, void* stream) const
    {
        if (_table->stream_destroy(device, stream) != 0)
        {
            failWith("destroying a stream");
        }
    }

    void Module::copyToDeviceAsync(int device, void* destination, void const* source, std::size_t bytes, void* stream) const
    {
        if (_table->copy_to_device_async(device, destination, source, bytes, stream) != 0)
        {
            failWith("queuing a copy to the device");
        }
    }

    void Module::copyToHostAsync(int device, void* destination, void const* source, std::size_t bytes, void* stream) const
    {
        if (_table->copy_to_host_async(device, destination, source, bytes, stream) != 0)
        {
            failWith("queuing a copy from the device");
        }
    }

    void Module::streamSynchronize(int device, void* stream) const
    {
        if (_table->stream_synchronize(device, stream) != 0)
        {
            failWith("waiting for a stream's copies");
        }
    }

    std::vector<std::string> moduleSearchDirectories()
    {
        // Beside the file this code was loaded from: libmxl.so, or a program that compiles the flow library in.
        return modules::searchDirectories(modulePathVariable, modules::directoryContaining(reinterpret_cast<void const*>(&loadedModule)),
                                          MXL_DEVICE_MODULE_INSTALL_DIR);
    }

    Module const& loadedModule()
    {
        if constexpr (!MXL_DEVICE_MODULE_BUILT)
        {
            fail(MXL_ERR_UNSUPPORTED_OPERATION, "this libmxl was built without CUDA (MXL_WITH_CUDA=OFF), so it has no device module");
        }
        static std::mutex mutex;
        static std::unique_ptr<Module> loaded;
        std::lock_guard lock{mutex};
        if (loaded)
        {
            return *loaded;
        }
        auto const directories = moduleSearchDirectories();
        auto const path = modules::findInDirectories(directories, moduleFileName);
        if (!path)
        {
            fail(MXL_ERR_UNSUPPORTED_OPERATION, "no device module {} in {} ({}={})", moduleFileName, modules::joinDirectories(directories),
                 modulePathVariable, variableText());
        }
        loaded = std::make_unique<Module>(enter(*path));
        return *loaded;
    }
}
