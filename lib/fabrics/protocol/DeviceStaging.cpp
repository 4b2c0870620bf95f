#include "fabrics/protocol/DeviceStaging.hpp"

#include "common/Status.hpp"

#include <cstring>

namespace mxl::fabrics
{
    bool DeviceStaging::needed(FlowMemory const& memory) noexcept
    {
        return memory.data != nullptr && memory.data->info.config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
    }

    DeviceStaging::DeviceStaging(FlowMemory const& memory, GrainGeometry const& geometry)
        : _module{*memory.deviceModule}
        , _device{memory.localDeviceIndex}
        , _devicePayloads{memory.devicePayloads}
        , _deviceStride{memory.deviceGrainStrideBytes}
        , _slots{memory.grainCount}
        , _slotBytes{geometry.regionBytes()}
    {
        void* host = nullptr;
        if (_module.host_allocate(_slots * _slotBytes, &host) != 0 || host == nullptr)
        {
            failWith(fmt::format("allocating {} pinned host slots of {} bytes to stage its payloads", _slots, _slotBytes));
        }
        _host = static_cast<std::uint8_t*>(host);
        if (_module.stream_create(_device, &_stream) != 0)
        {
            auto const words = runtimeWords();
            static_cast<void>(_module.host_release(_host));
            failWith("creating a stream to stage its payloads", words);
        }
        for (std::uint32_t index = 0; index < _slots; ++index)
        {
            std::memcpy(slot(index), memory.grains[index], sizeof(mxlGrainInfo));
        }
    }

    DeviceStaging::~DeviceStaging()
    {
        // Nothing may still be copying into or out of the slots when they are freed.
        static_cast<void>(_module.stream_synchronize(_device, _stream));
        static_cast<void>(_module.stream_destroy(_device, _stream));
        static_cast<void>(_module.host_release(_host));
    }

    RegionSpans DeviceStaging::spans() const
    {
        RegionSpans result;
        result.reserve(_slots);
        for (std::uint32_t index = 0; index < _slots; ++index)
        {
            result.emplace_back(slot(index), _slotBytes);
        }
        return result;
    }

    std::uint8_t* DeviceStaging::slot(std::uint32_t index) const noexcept
    {
        return _host + std::size_t{index} * _slotBytes;
    }

    void DeviceStaging::toHost(std::uint32_t index, GrainRanges const& ranges)
    {
        copy(Direction::ToHost, index, ranges);
    }

    void DeviceStaging::toDevice(std::uint32_t index, GrainRanges const& ranges)
    {
        copy(Direction::ToDevice, index, ranges);
    }

    void DeviceStaging::copy(Direction direction, std::uint32_t index, GrainRanges const& ranges)
    {
        auto* const device = _devicePayloads + std::size_t{index} * _deviceStride;
        auto* const host = slot(index);
        for (auto const& range : ranges)
        {
            if (range.offset < layout::grainPayloadOffset || range.offset + range.length > _slotBytes)
            {
                fail(MXL_ERR_INVALID_ARG, "bytes [{}, {}) are not in the payload of a {}-byte grain region", range.offset,
                     range.offset + range.length, _slotBytes);
            }
            auto* const devicePart = device + (range.offset - layout::grainPayloadOffset);
            auto const failed = direction == Direction::ToHost
                                    ? _module.copy_to_host_async(_device, host + range.offset, devicePart, range.length, _stream)
                                    : _module.copy_to_device_async(_device, devicePart, host + range.offset, range.length, _stream);
            if (failed != 0)
            {
                static_cast<void>(_module.stream_synchronize(_device, _stream));
                failWith(fmt::format("copying {} bytes of ring slot {} {}", range.length, index,
                                     direction == Direction::ToHost ? "out of the device" : "into the device"));
            }
        }
        if (_module.stream_synchronize(_device, _stream) != 0)
        {
            failWith(fmt::format("waiting for the copies of ring slot {}", index));
        }
    }

    std::string DeviceStaging::describe() const
    {
        return fmt::format("payloads on CUDA device {} staged through {} pinned host slots of {} bytes", _device, _slots, _slotBytes);
    }

    std::string describeDirect(FlowMemory const& memory)
    {
        return fmt::format("payloads on CUDA device {} registered directly with the transport ({} ring slots of {} bytes, no staging copy)",
                           memory.localDeviceIndex, memory.grainCount, memory.deviceGrainStrideBytes);
    }

    std::string DeviceStaging::runtimeWords() const
    {
        auto const* reason = _module.last_error();
        return reason != nullptr && *reason != '\0' ? reason : "(no reason given)";
    }

    void DeviceStaging::failWith(std::string const& what, std::string const& words) const
    {
        fail(MXL_ERR_UNKNOWN, "device flow on CUDA device {}: {} failed: {}", _device, what, words);
    }

    void DeviceStaging::failWith(std::string const& what) const
    {
        failWith(what, runtimeWords());
    }
}
