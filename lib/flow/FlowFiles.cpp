#include "FlowFiles.hpp"

#include "FlowDefinition.hpp"
#include "common/FlowPaths.hpp"
#include "SystemError.hpp"
#include "Timing.hpp"

#include <mxl/dataformat.h>

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

namespace mxl
{
    namespace
    {
        bool isDiscreteFormat(std::uint32_t format) noexcept
        {
            return format == MXL_DATA_FORMAT_VIDEO || format == MXL_DATA_FORMAT_DATA;
        }

        bool isContinuousFormat(std::uint32_t format) noexcept
        {
            return format == MXL_DATA_FORMAT_AUDIO;
        }

        bool isDeviceFlow(mxlFlowConfigInfo const& config) noexcept
        {
            return config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
        }

        // A device flow's grain files hold the header alone: its payloads are in device memory.
        std::size_t grainFileBytes(mxlFlowConfigInfo const& config, std::uint32_t grainSizeBytes) noexcept
        {
            return layout::grainPayloadOffset + (isDeviceFlow(config) ? 0 : grainSizeBytes);
        }

        std::string flowIdOf(std::filesystem::path const& directory)
        {
            return directory.stem().string();
        }

        std::string flowIdOf(mxlFlowConfigInfo const& config)
        {
            std::array<std::uint8_t, 16> id{};
            std::copy(std::begin(config.common.id), std::end(config.common.id), id.begin());
            return formatUuid(id);
        }

        // What the flow's files take in the domain, or nullopt past what a 64-bit size holds.
        std::optional<std::uint64_t> flowBytes(mxlFlowConfigInfo const& config, std::uint32_t grainSizeBytes, std::uint32_t sampleWordBytes)
        {
            std::uint64_t ring = 0;
            bool const overflows =
                isDiscreteFormat(config.common.format)
                    ? __builtin_mul_overflow(std::uint64_t{config.discrete.grainCount}, grainFileBytes(config, grainSizeBytes), &ring)
                    : __builtin_mul_overflow(std::uint64_t{config.continuous.channelCount} * config.continuous.bufferLength,
                                             std::uint64_t{sampleWordBytes}, &ring);
            std::uint64_t total = 0;
            if (overflows || __builtin_add_overflow(ring, std::uint64_t{sizeof(layout::FlowData)}, &total))
            {
                return std::nullopt;
            }
            return total;
        }

        // A ring that cannot fit in the domain's filesystem (tmpfs: memory) is refused before a byte of it is allocated.
        void checkRoom(std::filesystem::path const& directory, mxlFlowConfigInfo const& config, std::uint32_t grainSizeBytes,
                       std::uint32_t sampleWordBytes)
        {
            auto const needed = flowBytes(config, grainSizeBytes, sampleWordBytes);
            if (!needed)
            {
                fail(MXL_ERR_UNKNOWN, "flow {}: its ring is larger than a 64-bit size can hold", flowIdOf(config));
            }
            struct statvfs room
            {
            };
            if (::statvfs(directory.c_str(), &room) != 0)
            {
                failErrno(errno, "statvfs {}", directory.string());
            }
            // Larger than the whole filesystem: the definition or the domain's history must change. Larger than what is
            // free now: the domain is full, which may pass.
            auto const total = std::uint64_t{room.f_blocks} * room.f_frsize;
            if (*needed > total)
            {
                fail(MXL_ERR_UNKNOWN, "flow {} needs {} bytes for its ring, and the filesystem of '{}' holds {} bytes in all",
                     flowIdOf(config), *needed, directory.parent_path().string(), total);
            }
            auto const available = std::uint64_t{room.f_bavail} * room.f_frsize;
            if (*needed > available)
            {
                fail(MXL_ERR_INVALID_STATE, "flow {} needs {} bytes for its ring, and the filesystem of '{}' has {} bytes free",
                     flowIdOf(config), *needed, directory.parent_path().string(), available);
            }
        }

        void initializeFlowData(MappedFile const& file, mxlFlowConfigInfo const& config)
        {
            struct stat status
            {
            };
            if (::fstat(file.fd(), &status) != 0)
            {
                failErrno(errno, "fstat of a new flow's data file");
            }
            auto& data = *file.as<layout::FlowData>();
            data.info.version = layout::flowInfoVersion;
            data.info.size = sizeof(mxlFlowInfo);
            data.info.config = config;
            auto const nowNs = timing::taiNowNs();
            data.info.runtime.lastWriteTime = nowNs;
            data.info.runtime.lastReadTime = nowNs;
            // rename keeps the inode, so readers compare against this value to detect a deleted or re-created flow.
            data.state.inode = status.st_ino;
        }
    }

    FlowFiles FlowFiles::create(std::filesystem::path const& directory, mxlFlowConfigInfo const& config, std::uint32_t grainSizeBytes,
                                std::uint16_t totalSlices, std::uint32_t sampleWordBytes)
    {
        checkRoom(directory, config, grainSizeBytes, sampleWordBytes);
        FlowFiles files;
        files._data = MappedFile::create(paths::dataFile(directory), sizeof(layout::FlowData));
        initializeFlowData(files._data, config);
        if (isDiscreteFormat(config.common.format))
        {
            if (isDeviceFlow(config))
            {
                // The flow is not yet renamed into place: `directory` is the temporary one, named after no flow.
                files._device =
                    device::DeviceRing::allocate(flowIdOf(config), config.common.deviceIndex, config.discrete.grainCount, grainSizeBytes);
                auto const record = MappedFile::create(paths::deviceFile(directory), sizeof(layout::DeviceRecord));
                *record.as<layout::DeviceRecord>() = files._device->record();
            }
            std::filesystem::create_directory(paths::grainsDirectory(directory));
            for (std::uint32_t slot = 0; slot < config.discrete.grainCount; ++slot)
            {
                auto file = MappedFile::create(paths::grainFile(directory, slot), grainFileBytes(config, grainSizeBytes));
                auto& header = file.as<layout::GrainHeader>()->info;
                header.version = layout::grainInfoVersion;
                header.size = sizeof(mxlGrainInfo);
                header.grainSize = grainSizeBytes;
                header.totalSlices = totalSlices;
                files._grains.push_back(std::move(file));
            }
            files.indexGrains();
            return files;
        }
        auto const channelBytes = std::size_t{config.continuous.channelCount} * config.continuous.bufferLength * sampleWordBytes;
        files._channels = MappedFile::create(paths::channelsFile(directory), channelBytes);
        files._sampleWordBytes = sampleWordBytes;
        return files;
    }

    FlowFiles FlowFiles::open(std::filesystem::path const& directory, MappedFile::Access access)
    {
        FlowFiles files;
        auto const dataPath = paths::dataFile(directory);
        files._data = MappedFile::open(dataPath, access, sizeof(layout::FlowData));
        auto const& info = files.data().info;
        if (info.version != layout::flowInfoVersion || info.size != sizeof(mxlFlowInfo))
        {
            fail(MXL_ERR_UNKNOWN, "{} has flow info version {} and size {}, expected version {} and size {}", dataPath.string(),
                 info.version, info.size, layout::flowInfoVersion, sizeof(mxlFlowInfo));
        }
        if (isDiscreteFormat(info.config.common.format))
        {
            files.openGrains(directory, access);
        }
        else if (isContinuousFormat(info.config.common.format))
        {
            files.openChannels(directory, access);
        }
        else
        {
            fail(MXL_ERR_UNKNOWN, "{} has data format {}, expected 1 (video), 2 (audio) or 3 (data)", dataPath.string(),
                 info.config.common.format);
        }
        return files;
    }

    void FlowFiles::openGrains(std::filesystem::path const& directory, MappedFile::Access access)
    {
        auto const grainCount = data().info.config.discrete.grainCount;
        if (grainCount == 0)
        {
            fail(MXL_ERR_UNKNOWN, "{} declares 0 grains, expected at least 1", paths::dataFile(directory).string());
        }
        for (std::uint32_t slot = 0; slot < grainCount; ++slot)
        {
            auto const path = paths::grainFile(directory, slot);
            auto file = MappedFile::open(path, access, sizeof(layout::GrainHeader));
            auto const& header = file.as<layout::GrainHeader>()->info;
            if (header.version != layout::grainInfoVersion || header.size != sizeof(mxlGrainInfo))
            {
                fail(MXL_ERR_UNKNOWN, "{} has grain header version {} and size {}, expected version {} and size {}", path.string(),
                     header.version, header.size, layout::grainInfoVersion, sizeof(mxlGrainInfo));
            }
            auto const expectedBytes = grainFileBytes(data().info.config, header.grainSize);
            if (file.sizeBytes() < expectedBytes)
            {
                fail(MXL_ERR_UNKNOWN, "{} is {} bytes, expected {} for a {}-byte grain (truncated flow file)", path.string(),
                     file.sizeBytes(), expectedBytes, header.grainSize);
            }
            _grains.push_back(std::move(file));
        }
        indexGrains();
        if (isDeviceFlow(data().info.config))
        {
            openDeviceRing(directory);
        }
    }

    void FlowFiles::openDeviceRing(std::filesystem::path const& directory)
    {
        auto const path = paths::deviceFile(directory);
        // Read-only and unlocked whatever the access: the record never changes after the flow is published.
        auto const file = MappedFile::open(path, MappedFile::Access::ReadOnly, sizeof(layout::DeviceRecord));
        auto const record = *file.as<layout::DeviceRecord>();
        device::validateDeviceRecord(record, path.string(), data().info.config.discrete.grainCount,
                                     _grains.front().as<layout::GrainHeader>()->info.grainSize);
        _device = device::DeviceRing::open(flowIdOf(directory), record);
    }

    void FlowFiles::openChannels(std::filesystem::path const& directory, MappedFile::Access access)
    {
        auto const& continuous = data().info.config.continuous;
        auto const path = paths::channelsFile(directory);
        auto const samples = std::size_t{continuous.channelCount} * continuous.bufferLength;
        if (samples == 0)
        {
            fail(MXL_ERR_UNKNOWN, "{} declares {} channels of {} samples, expected both non-zero", paths::dataFile(directory).string(),
                 continuous.channelCount, continuous.bufferLength);
        }
        _channels = MappedFile::open(path, access, samples);
        // The word size is not in the header: the SDK infers it from the file size, and so must we.
        auto const wordBytes = _channels.sizeBytes() / samples;
        if (_channels.sizeBytes() % samples != 0 || (wordBytes != 4 && wordBytes != 8))
        {
            fail(MXL_ERR_UNKNOWN, "{} is {} bytes, expected {} channels x {} samples x 4 or 8 bytes", path.string(), _channels.sizeBytes(),
                 continuous.channelCount, continuous.bufferLength);
        }
        _sampleWordBytes = static_cast<std::uint32_t>(wordBytes);
    }

    void FlowFiles::indexGrains()
    {
        _grainBases.clear();
        for (auto const& grain : _grains)
        {
            _grainBases.push_back(grain.bytes());
        }
    }

    bool FlowFiles::isDiscrete() const noexcept
    {
        return isDiscreteFormat(data().info.config.common.format);
    }

    FlowMemory FlowFiles::memory() const noexcept
    {
        FlowMemory memory;
        memory.data = &data();
        if (isDiscrete())
        {
            memory.grains = _grainBases.data();
            memory.grainCount = static_cast<std::uint32_t>(_grains.size());
            memory.grainFileBytes = _grains.front().sizeBytes();
            if (_device)
            {
                memory.devicePayloads = _device->base();
                memory.deviceGrainStrideBytes = _device->record().grainStrideBytes;
                memory.localDeviceIndex = _device->localDevice();
                memory.deviceModule = &_device->module().table();
            }
            return memory;
        }
        memory.channels = _channels.bytes();
        memory.channelBytes = _channels.sizeBytes();
        memory.sampleWordBytes = _sampleWordBytes;
        return memory;
    }
}
