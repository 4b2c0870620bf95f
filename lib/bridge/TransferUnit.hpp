// What one transfer of a flow moves: a grain (video, data) or a batch of samples (audio).
#pragma once

#include <mxl/dataformat.h>
#include <mxl/flow.h>

#include <cstdint>

namespace mxl::bridge
{
    enum class TransferUnit
    {
        Grain,
        Batch,
    };

    // Batches for audio (continuous) flows, grains for the others.
    [[nodiscard]] inline TransferUnit transferUnitOf(mxlFlowConfigInfo const& flow) noexcept
    {
        return mxlIsContinuousDataFormat(static_cast<int>(flow.common.format)) ? TransferUnit::Batch : TransferUnit::Grain;
    }

    // The payload bytes of one slice of a grain, all planes (0 for an audio flow).
    [[nodiscard]] inline std::uint64_t bytesPerSlice(mxlFlowConfigInfo const& flow) noexcept
    {
        if (transferUnitOf(flow) == TransferUnit::Batch)
        {
            return 0;
        }
        std::uint64_t bytes = 0;
        for (auto const size : flow.discrete.sliceSizes)
        {
            bytes += size;
        }
        return bytes;
    }
}
