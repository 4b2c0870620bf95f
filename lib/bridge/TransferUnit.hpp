// What one transfer of a flow moves: a grain (video, data) or a batch of samples (audio).
#pragma once

#include <mxl/dataformat.h>
#include <mxl/flow.h>

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
}
