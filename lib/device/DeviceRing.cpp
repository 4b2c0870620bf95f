#include "device/DeviceRing.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace mxl::device
{
    static_assert(sizeof(layout::DeviceRecord::ipcHandle) == MXL_DEVICE_IPC_HANDLE_BYTES);
    static_assert(sizeof(layout::DeviceRecord::pciBusId) == MXL_DEVICE_PCI_BUS_ID_BYTES);
    static_assert(sizeof(layout::DeviceRecord::uuid) == MXL_DEVICE_UUID_BYTES);

    namespace
    {
        // The rings this process allocated, by their exported handle: a reader of such a flow in this process takes
        // the creator's pointer.
        class AllocatedRings
        {
        public:
            void add(IpcHandle const& handle, std::uint8_t* base)
            {
                std::lock_guard lock{_mutex};
                _rings.push_back({handle, base});
            }

            void remove(std::uint8_t* base)
            {
                std::lock_guard lock{_mutex};
                std::erase_if(_rings, [&](Entry const& entry) { return entry.base == base; });
            }

            [[nodiscard]] std::uint8_t* find(IpcHandle const& handle)
            {
                std::lock_guard lock{_mutex};
                auto const found = std::ranges::find(_rings, handle, &Entry::handle);
                return found != _rings.end() ? found->base : nullptr;
            }

        private:
            struct Entry
            {
                IpcHandle handle;
                std::uint8_t* base;
            };

            std::mutex _mutex;
            std::vector<Entry> _rings;
        };

        AllocatedRings& allocatedRings()
        {
            static AllocatedRings rings;
            return rings;
        }

        std::string visibleDevicesText()
        {
            auto const* value = std::getenv("CUDA_VISIBLE_DEVICES");
            return value != nullptr ? value : "unset";
        }

        // Bus ids compare without regard to case: the runtime writes upper-case hex, nvidia-smi and sysfs lower-case.
        bool sameBusId(char const* a, char const* b)
        {
            auto const lengthA = std::strlen(a);
            return lengthA == std::strlen(b) &&
                   std::equal(a, a + lengthA, b,
                              [](char x, char y)
                              { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); });
        }

        // Runs `body`; a failure in it names the flow and the device it was about.
        template <typename Body>
        auto forFlow(std::string_view flowId, std::string_view device, Body&& body)
        {
            try
            {
                return std::forward<Body>(body)();
            }
            catch (Error const& e)
            {
                fail(e.status(), "flow {}: payloads on {}: {}", flowId, device, e.what());
            }
        }
    }

    enum class Ownership
    {
        // This process allocated the ring and frees it.
        Allocated,
        // Another process's ring, opened through its IPC handle and closed again.
        Imported,
        // This process's own ring seen by a reader or another writer here: neither freed nor closed.
        Borrowed,
    };

    struct DeviceRing::Mapping
    {
        Module const* module;
        layout::DeviceRecord record;
        int localDevice;
        std::uint8_t* base;
        Ownership ownership;

        Mapping(Module const& owner, layout::DeviceRecord const& published, int device, std::uint8_t* pointer, Ownership kind)
            : module{&owner}
            , record{published}
            , localDevice{device}
            , base{pointer}
            , ownership{kind}
        {
        }

        Mapping(Mapping const&) = delete;
        Mapping& operator=(Mapping const&) = delete;

        ~Mapping()
        {
            try
            {
                if (ownership == Ownership::Allocated)
                {
                    allocatedRings().remove(base);
                    module->release(localDevice, base);
                }
                else if (ownership == Ownership::Imported)
                {
                    module->closeImport(localDevice, base);
                }
            }
            catch (Error const& e)
            {
                log::warn("device payload ring on CUDA device {} (PCI {}) was not released cleanly: {}", localDevice, record.pciBusId,
                          e.what());
            }
        }
    };

    std::uint64_t deviceGrainStrideBytes(std::uint32_t grainSizeBytes) noexcept
    {
        auto const alignment = layout::deviceGrainAlignmentBytes;
        return std::max<std::uint64_t>(1, (std::uint64_t{grainSizeBytes} + alignment - 1) / alignment) * alignment;
    }

    DeviceRing DeviceRing::allocate(std::string_view flowId, std::int32_t deviceIndex, std::uint32_t grainCount,
                                    std::uint32_t grainSizeBytes)
    {
        return forFlow(flowId, fmt::format("CUDA device {}", deviceIndex),
                       [&]
                       {
                           auto const& module = loadedModule();
                           auto const count = module.deviceCount();
                           if (deviceIndex < 0 || deviceIndex >= count)
                           {
                               fail(MXL_ERR_NOT_FOUND,
                                    "this process sees {} CUDA device(s), expected an index from 0 to {} (CUDA_VISIBLE_DEVICES={})", count,
                                    count - 1, visibleDevicesText());
                           }
                           auto const properties = module.properties(deviceIndex);
                           layout::DeviceRecord record{};
                           record.magic = layout::deviceRecordMagic;
                           record.version = layout::deviceRecordVersion;
                           record.deviceIndex = deviceIndex;
                           record.grainCount = grainCount;
                           std::memcpy(record.pciBusId, properties.pciBusId, sizeof record.pciBusId);
                           std::memcpy(record.uuid, properties.uuid, sizeof record.uuid);
                           record.grainStrideBytes = deviceGrainStrideBytes(grainSizeBytes);
                           record.grainSizeBytes = grainSizeBytes;
                           record.allocationBytes = record.grainStrideBytes * grainCount;
                           record.writerProcessId = static_cast<std::int32_t>(::getpid());
                           auto* const base = static_cast<std::uint8_t*>(module.allocate(deviceIndex, record.allocationBytes));
                           // Owned from here on: a failing export frees the allocation again.
                           auto mapping = std::make_unique<Mapping>(module, record, deviceIndex, base, Ownership::Allocated);
                           auto const handle = module.exportHandle(deviceIndex, base);
                           std::memcpy(mapping->record.ipcHandle, handle.data(), handle.size());
                           allocatedRings().add(handle, base);
                           log::debug("flow {}: {} bytes of payloads on CUDA device {} ({}, PCI {}) through {}", flowId,
                                      record.allocationBytes, deviceIndex, properties.name, properties.pciBusId, module.path());
                           return DeviceRing{std::move(mapping)};
                       });
    }

    DeviceRing DeviceRing::open(std::string_view flowId, layout::DeviceRecord const& record)
    {
        return forFlow(flowId, fmt::format("the writer's CUDA device {} (PCI bus id {})", record.deviceIndex, record.pciBusId),
                       [&]
                       {
                           auto const& module = loadedModule();
                           auto const count = module.deviceCount();
                           std::string seen;
                           for (int device = 0; device < count; ++device)
                           {
                               auto const properties = module.properties(device);
                               if (!sameBusId(properties.pciBusId, record.pciBusId))
                               {
                                   seen += (seen.empty() ? "" : ", ") + std::string{properties.pciBusId};
                                   continue;
                               }
                               IpcHandle handle{};
                               std::memcpy(handle.data(), record.ipcHandle, handle.size());
                               if (auto* const own = allocatedRings().find(handle))
                               {
                                   return DeviceRing{std::make_unique<Mapping>(module, record, device, own, Ownership::Borrowed)};
                               }
                               auto* const base = static_cast<std::uint8_t*>(module.importHandle(device, handle));
                               return DeviceRing{std::make_unique<Mapping>(module, record, device, base, Ownership::Imported)};
                           }
                           fail(MXL_ERR_NOT_FOUND,
                                "this process does not see that GPU: its {} CUDA device(s) have PCI bus ids [{}] (CUDA_VISIBLE_DEVICES={})",
                                count, seen, visibleDevicesText());
                       });
    }

    void validateDeviceRecord(layout::DeviceRecord const& record, std::string_view path, std::uint32_t grainCount,
                              std::uint32_t grainSizeBytes)
    {
        if (record.magic != layout::deviceRecordMagic || record.version != layout::deviceRecordVersion)
        {
            fail(MXL_ERR_UNKNOWN, "{} has magic {:#010x} and version {}, expected {:#010x} and version {}", path, record.magic,
                 record.version, layout::deviceRecordMagic, layout::deviceRecordVersion);
        }
        if (record.grainCount != grainCount || record.grainSizeBytes != grainSizeBytes)
        {
            fail(MXL_ERR_UNKNOWN, "{} describes {} grains of {} bytes, the flow's headers {} grains of {} bytes", path, record.grainCount,
                 record.grainSizeBytes, grainCount, grainSizeBytes);
        }
        if (record.grainStrideBytes < record.grainSizeBytes || record.allocationBytes / grainCount < record.grainStrideBytes)
        {
            fail(MXL_ERR_UNKNOWN, "{} has a grain stride of {} bytes in {} bytes, expected at least {} bytes per grain for {} grains", path,
                 record.grainStrideBytes, record.allocationBytes, record.grainSizeBytes, grainCount);
        }
        if (std::memchr(record.pciBusId, '\0', sizeof record.pciBusId) == nullptr)
        {
            fail(MXL_ERR_UNKNOWN, "{} has a PCI bus id without its terminating NUL", path);
        }
    }

    DeviceRing::DeviceRing(std::unique_ptr<Mapping> mapping)
        : _mapping{std::move(mapping)}
    {
    }

    DeviceRing::DeviceRing(DeviceRing&&) noexcept = default;
    DeviceRing& DeviceRing::operator=(DeviceRing&&) noexcept = default;
    DeviceRing::~DeviceRing() = default;

    layout::DeviceRecord const& DeviceRing::record() const noexcept
    {
        return _mapping->record;
    }

    int DeviceRing::localDevice() const noexcept
    {
        return _mapping->localDevice;
    }

    Module const& DeviceRing::module() const noexcept
    {
        return *_mapping->module;
    }

    std::uint8_t* DeviceRing::base() const noexcept
    {
        return _mapping->base;
    }

    std::uint8_t* DeviceRing::grainPayload(std::uint64_t index) const noexcept
    {
        return _mapping->base + (index % _mapping->record.grainCount) * _mapping->record.grainStrideBytes;
    }

    void DeviceRing::checkInside(std::string_view flowId, std::uint8_t const* device, std::size_t bytes) const
    {
        // Compared as integers: pointers into different allocations have no order in C++.
        auto const begin = reinterpret_cast<std::uintptr_t>(_mapping->base);
        auto const size = _mapping->record.allocationBytes;
        auto const first = reinterpret_cast<std::uintptr_t>(device);
        if (device == nullptr || first < begin || first - begin > size || bytes > size - (first - begin))
        {
            fail(MXL_ERR_INVALID_ARG, "flow {}: {} bytes at device address {} are not inside its payload ring at {} ({} bytes)", flowId,
                 bytes, static_cast<void const*>(device), static_cast<void const*>(_mapping->base), size);
        }
    }

    void DeviceRing::copyToDevice(std::string_view flowId, std::uint8_t* device, void const* host, std::size_t bytes) const
    {
        checkInside(flowId, device, bytes);
        forFlow(flowId, fmt::format("CUDA device {}", _mapping->localDevice),
                [&] { _mapping->module->copyToDevice(_mapping->localDevice, device, host, bytes); });
    }

    void DeviceRing::copyToHost(std::string_view flowId, void* host, std::uint8_t const* device, std::size_t bytes) const
    {
        checkInside(flowId, device, bytes);
        forFlow(flowId, fmt::format("CUDA device {}", _mapping->localDevice),
                [&] { _mapping->module->copyToHost(_mapping->localDevice, host, device, bytes); });
    }
}
