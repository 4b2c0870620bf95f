#include "fabrics/protocol/SampleGeometry.hpp"

#include "common/Status.hpp"
#include "fabrics/protocol/MappedFlow.hpp"

#include <mxl/dataformat.h>

#include <cstring>

namespace mxl::fabrics
{
    std::array<RingRun, 2> ringRuns(std::uint64_t headIndex, std::size_t count, std::size_t ringLength) noexcept
    {
        auto const length = std::uint64_t{ringLength};
        // (headIndex − count) mod L without underflow when headIndex < count.
        auto const start = static_cast<std::size_t>((headIndex % length + length - count % length) % length);
        auto const first = std::min(count, ringLength - start);
        return {RingRun{start, first}, RingRun{0, count - first}};
    }

    bool carriesSamples(FlowMemory const& memory) noexcept
    {
        return memory.data != nullptr && mxlIsContinuousDataFormat(static_cast<int>(memory.data->info.config.common.format));
    }

    SampleGeometry::SampleGeometry(std::uint32_t channels, std::uint32_t wordBytes, std::size_t ringLength) noexcept
        : _channels{channels}
        , _wordBytes{wordBytes}
        , _ringLength{ringLength}
    {
    }

    SampleGeometry SampleGeometry::of(FlowMemory const& memory, char const* role)
    {
        auto const& config = mappedFlowConfig(memory, role, FlowCarries::Samples);
        if (config.common.payloadLocation != MXL_PAYLOAD_LOCATION_HOST_MEMORY)
        {
            fail(MXL_ERR_UNSUPPORTED_OPERATION,
                 "the {}'s flow carries samples in the memory of CUDA device {}: only grains can be device payloads (docs/device-flows.md)",
                 role, config.common.deviceIndex);
        }
        SampleGeometry geometry{config.continuous.channelCount, memory.sampleWordBytes, config.continuous.bufferLength};
        if (memory.channels == nullptr || geometry.frameBytes() == 0 || geometry.ringLength() == 0 ||
            geometry.channelStrideBytes() * geometry.channels() > memory.channelBytes)
        {
            fail(MXL_ERR_INVALID_ARG, "the {}'s sample ring is inconsistent: {} channels of {} samples of {} bytes, {} bytes mapped", role,
                 geometry.channels(), geometry.ringLength(), geometry.wordBytes(), memory.channelBytes);
        }
        return geometry;
    }

    BounceLayout bounceLayout(SampleGeometry const& geometry, std::size_t batchSamples) noexcept
    {
        auto const payloadBytes = geometry.frameBytes() * std::max<std::size_t>(batchSamples, 1);
        auto const ringBytes = geometry.frameBytes() * geometry.ringLength();
        return {(ringBytes + payloadBytes - 1) / payloadBytes, sizeof(wire::SampleEntryHeader) + payloadBytes};
    }

    std::size_t entryCapacity(std::size_t entryBytes, std::size_t frameBytes) noexcept
    {
        if (entryBytes < sizeof(wire::SampleEntryHeader) || frameBytes == 0)
        {
            return 0;
        }
        return (entryBytes - sizeof(wire::SampleEntryHeader)) / frameBytes;
    }

    void unpackEntry(std::uint8_t const* payload, std::size_t count, std::uint32_t channels, std::uint32_t wordBytes,
                     std::array<std::uint8_t*, 2> const& runStarts, std::array<std::size_t, 2> const& runCounts,
                     std::size_t strideBytes) noexcept
    {
        for (std::uint32_t channel = 0; channel < channels; ++channel)
        {
            auto const* source = payload + std::size_t{channel} * count * wordBytes;
            for (std::size_t run = 0; run < 2; ++run)
            {
                auto const bytes = runCounts[run] * wordBytes;
                if (bytes != 0)
                {
                    std::memcpy(runStarts[run] + std::size_t{channel} * strideBytes, source, bytes);
                }
                source += bytes;
            }
        }
    }
}
