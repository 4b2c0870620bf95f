#include "fabrics/protocol/GrainGeometry.hpp"

#include "common/Status.hpp"
#include "fabrics/protocol/MappedFlow.hpp"

#include <mxl/dataformat.h>

#include <algorithm>

namespace mxl::fabrics
{
    GrainGeometry::GrainGeometry(std::array<std::uint32_t, MXL_MAX_PLANES_PER_GRAIN> const& sliceSizes, std::uint16_t totalSlices)
        : _sliceSizes{sliceSizes}
        , _totalSlices{totalSlices}
    {
    }

    GrainGeometry GrainGeometry::of(FlowMemory const& memory, char const* role)
    {
        auto const& config = mappedFlowConfig(memory, role, FlowCarries::Grains);
        if (memory.grains == nullptr || memory.grainCount == 0)
        {
            fail(MXL_ERR_INVALID_ARG, "the {}'s flow has no grain mappings", role);
        }
        auto const* header = reinterpret_cast<mxlGrainInfo const*>(memory.grains[0]);
        std::array<std::uint32_t, MXL_MAX_PLANES_PER_GRAIN> sliceSizes{};
        std::copy(std::begin(config.discrete.sliceSizes), std::end(config.discrete.sliceSizes), sliceSizes.begin());
        GrainGeometry geometry{sliceSizes, header->totalSlices};
        auto const onDevice = config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
        // A device flow's grain files hold the header alone; its payloads are slots of the device ring.
        auto const payloadRoom =
            onDevice ? memory.deviceGrainStrideBytes : memory.grainFileBytes - std::min(memory.grainFileBytes, layout::grainPayloadOffset);
        if (geometry.payloadBytes() != header->grainSize || geometry.payloadBytes() > payloadRoom)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "the {}'s grains are inconsistent: {} slices of {}/{}/{}/{} bytes make {} bytes, header says {}, room for {} in {}", role,
                 geometry.totalSlices(), sliceSizes[0], sliceSizes[1], sliceSizes[2], sliceSizes[3], geometry.payloadBytes(),
                 header->grainSize, payloadRoom, onDevice ? "each device slot" : "each grain file");
        }
        if (onDevice && (memory.devicePayloads == nullptr || memory.deviceModule == nullptr))
        {
            fail(MXL_ERR_INVALID_STATE, "the {}'s flow has its payloads on CUDA device {}, but libmxl mapped no device payloads for it",
                 role, config.common.deviceIndex);
        }
        return geometry;
    }

    std::size_t GrainGeometry::payloadBytes() const noexcept
    {
        std::size_t bytes = 0;
        for (auto const sliceSize : _sliceSizes)
        {
            bytes += std::size_t{sliceSize} * _totalSlices;
        }
        return bytes;
    }

    std::size_t GrainGeometry::regionBytes() const noexcept
    {
        return layout::grainPayloadOffset + payloadBytes();
    }

    GrainRanges GrainGeometry::payloadRanges(std::uint16_t start, std::uint16_t end) const
    {
        GrainRanges result;
        if (start == end)
        {
            return result;
        }
        if (start == 0 && end == _totalSlices)
        {
            result.push_back({layout::grainPayloadOffset, payloadBytes()});
            return result;
        }
        auto planeBase = layout::grainPayloadOffset;
        for (auto const sliceSize : _sliceSizes)
        {
            if (sliceSize == 0)
            {
                continue;
            }
            result.push_back({planeBase + std::size_t{start} * sliceSize, std::size_t{static_cast<std::size_t>(end - start)} * sliceSize});
            planeBase += std::size_t{sliceSize} * _totalSlices;
        }
        return result;
    }

    GrainRanges splitRanges(GrainRanges const& ranges, std::size_t maxMessageBytes)
    {
        GrainRanges pieces;
        for (auto const& range : ranges)
        {
            for (std::size_t done = 0; done < range.length; done += maxMessageBytes)
            {
                pieces.push_back({range.offset + done, std::min(maxMessageBytes, range.length - done)});
            }
        }
        return pieces;
    }
}
