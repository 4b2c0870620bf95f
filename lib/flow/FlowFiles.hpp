// The mapped files of one flow (data, then grains/data.<i> or channels), validated on open so that a truncated,
// foreign or wrong-version flow is an error and never a crash.
#pragma once

#include "MappedFile.hpp"

#include "common/FlowLayout.hpp"
#include "common/FlowMemory.hpp"
#include "device/DeviceRing.hpp"

#include <mxl/flowinfo.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace mxl
{
    class FlowFiles
    {
    public:
        // Creates the files of a new flow in `directory` (a fresh temporary directory) and initializes them
        // (docs/memory-layout.md). A device flow (config.common.payloadLocation) also allocates its payload ring and
        // writes the `device` file.
        static FlowFiles create(std::filesystem::path const& directory, mxlFlowConfigInfo const& config, std::uint32_t grainSizeBytes,
                                std::uint16_t totalSlices, std::uint32_t sampleWordBytes);

        // Maps the files of an existing flow directory; read-write access share-locks every file. A device flow's
        // payload ring is mapped too (docs/device-flows.md).
        static FlowFiles open(std::filesystem::path const& directory, MappedFile::Access access);

        FlowFiles(FlowFiles&&) noexcept = default;
        FlowFiles& operator=(FlowFiles&&) noexcept = default;

        [[nodiscard]] bool isDiscrete() const noexcept;

        [[nodiscard]] layout::FlowData& data() const noexcept
        {
            return *_data.as<layout::FlowData>();
        }

        [[nodiscard]] MappedFile& dataFile() noexcept
        {
            return _data;
        }

        [[nodiscard]] layout::GrainHeader& grainHeader(std::uint64_t index) const noexcept
        {
            return *_grains[index % _grains.size()].as<layout::GrainHeader>();
        }

        // A device pointer for a device flow.
        [[nodiscard]] std::uint8_t* grainPayload(std::uint64_t index) const noexcept
        {
            if (_device)
            {
                return _device->grainPayload(index);
            }
            return _grains[index % _grains.size()].bytes() + layout::grainPayloadOffset;
        }

        [[nodiscard]] std::uint8_t* channels() const noexcept
        {
            return _channels.bytes();
        }

        [[nodiscard]] std::uint32_t sampleWordBytes() const noexcept
        {
            return _sampleWordBytes;
        }

        // A device flow's payload ring; nullptr for a host flow.
        [[nodiscard]] device::DeviceRing const* deviceRing() const noexcept
        {
            return _device ? &*_device : nullptr;
        }

        // The view libmxl-fabrics registers with the NIC; valid while this object lives.
        [[nodiscard]] FlowMemory memory() const noexcept;

    private:
        FlowFiles() = default;

        void openGrains(std::filesystem::path const& directory, MappedFile::Access access);
        void openDeviceRing(std::filesystem::path const& directory);
        void openChannels(std::filesystem::path const& directory, MappedFile::Access access);
        void indexGrains();

        MappedFile _data;
        std::vector<MappedFile> _grains;
        // Base addresses of _grains, in the form FlowMemory exposes.
        std::vector<std::uint8_t*> _grainBases;
        MappedFile _channels;
        std::uint32_t _sampleWordBytes = 0;
        std::optional<device::DeviceRing> _device;
    };
}
