// The payloads of a device flow: one allocation of grainCount × grainStrideBytes in device memory, grain slot k at
// k × grainStrideBytes. The writer that creates the flow allocates it and publishes its IPC handle in a DeviceRecord
// (the flow's `device` file); every other process imports that handle, and the creator's own process uses the
// creator's pointer (CUDA refuses to import a handle in the process that exported it).
#pragma once

#include "common/FlowLayout.hpp"
#include "device/DeviceModule.hpp"

#include <cstdint>
#include <memory>
#include <string_view>

namespace mxl::device
{
    class DeviceRing
    {
    public:
        // Allocates (zeroed) and exports the ring of flow `flowId` on this process's CUDA device `deviceIndex`.
        // MXL_ERR_UNSUPPORTED_OPERATION where device memory cannot be had at all (no CUDA build, no module, no driver,
        // no device), MXL_ERR_NOT_FOUND for a device index this process does not see.
        static DeviceRing allocate(std::string_view flowId, std::int32_t deviceIndex, std::uint32_t grainCount,
                                   std::uint32_t grainSizeBytes);

        // Maps the ring `record` describes: the creator's own pointer in the creator's process, an IPC import
        // elsewhere, on this process's ordinal of the GPU with the record's PCI bus id (MXL_ERR_NOT_FOUND when this
        // process does not see it).
        static DeviceRing open(std::string_view flowId, layout::DeviceRecord const& record);

        DeviceRing(DeviceRing&&) noexcept;
        DeviceRing& operator=(DeviceRing&&) noexcept;
        ~DeviceRing();

        [[nodiscard]] layout::DeviceRecord const& record() const noexcept;

        // This process's CUDA ordinal of the ring's GPU.
        [[nodiscard]] int localDevice() const noexcept;

        // The module that mapped the ring.
        [[nodiscard]] Module const& module() const noexcept;

        [[nodiscard]] std::uint8_t* base() const noexcept;

        [[nodiscard]] std::uint8_t* grainPayload(std::uint64_t index) const noexcept;

        // Synchronous copies into and out of the ring; MXL_ERR_INVALID_ARG naming the flow when [device, device + bytes)
        // is not inside the ring.
        void copyToDevice(std::string_view flowId, std::uint8_t* device, void const* host, std::size_t bytes) const;
        void copyToHost(std::string_view flowId, void* host, std::uint8_t const* device, std::size_t bytes) const;

    private:
        struct Mapping;

        explicit DeviceRing(std::unique_ptr<Mapping> mapping);

        void checkInside(std::string_view flowId, std::uint8_t const* device, std::size_t bytes) const;

        std::unique_ptr<Mapping> _mapping;
    };

    // Grain size rounded up to layout::deviceGrainAlignmentBytes.
    [[nodiscard]] std::uint64_t deviceGrainStrideBytes(std::uint32_t grainSizeBytes) noexcept;

    // The checks a reader makes of a `device` file before trusting it; fails with MXL_ERR_UNKNOWN naming `path`, the
    // field, its value and what the flow's headers say.
    void validateDeviceRecord(layout::DeviceRecord const& record, std::string_view path, std::uint32_t grainCount,
                              std::uint32_t grainSizeBytes);
}
