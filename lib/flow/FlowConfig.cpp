// The config block of a new flow's header: identity, rate, batch hints and ring geometry.
#include "flow/FlowDefinition.hpp"

#include "common/Status.hpp"

#include <algorithm>

namespace mxl
{
    namespace
    {
        // Discrete: one whole grain per commit. Continuous: 10 ms of samples (480 at 48 kHz), at least one.
        std::uint32_t defaultBatchSize(FlowDefinition const& definition)
        {
            if (definition.format != MXL_DATA_FORMAT_AUDIO)
            {
                return definition.totalSlices;
            }
            auto const samples = definition.rate.numerator / definition.rate.denominator / 100;
            return static_cast<std::uint32_t>(std::clamp<std::int64_t>(samples, 1, UINT32_MAX));
        }

        // A hint left out takes its default, unless that would break "sync is a multiple of commit"; then it takes
        // the other hint's value, so that every commit wakes readers.
        void setBatchHints(mxlCommonFlowConfigInfo& common, std::uint32_t defaultSize, FlowOptions const& options)
        {
            auto const& commit = options.maxCommitBatchSizeHint;
            auto const& sync = options.maxSyncBatchSizeHint;
            common.maxCommitBatchSizeHint = commit.value_or(sync && *sync % defaultSize != 0 ? *sync : defaultSize);
            common.maxSyncBatchSizeHint = sync.value_or(commit && defaultSize % *commit != 0 ? *commit : defaultSize);
        }
    }

    mxlFlowConfigInfo makeFlowConfig(FlowDefinition const& definition, FlowOptions const& options, std::uint64_t historyNs)
    {
        mxlFlowConfigInfo config{};
        auto& common = config.common;
        std::copy(definition.id.begin(), definition.id.end(), common.id);
        common.format = static_cast<std::uint32_t>(definition.format);
        common.grainRate = definition.rate;
        common.payloadLocation = options.deviceIndex ? MXL_PAYLOAD_LOCATION_DEVICE_MEMORY : MXL_PAYLOAD_LOCATION_HOST_MEMORY;
        common.deviceIndex = options.deviceIndex.value_or(-1);
        setBatchHints(common, defaultBatchSize(definition), options);

        if (definition.format == MXL_DATA_FORMAT_AUDIO)
        {
            // The sample ring hands the application host pointers into two fragments and lets it do the arithmetic
            // across the wrap; a device pointer there would be dereferenced on the host (docs/device-flows.md).
            if (options.deviceIndex)
            {
                fail(MXL_ERR_UNSUPPORTED_OPERATION,
                     "flow {} is an audio (continuous) flow and asks for payloads on CUDA device {}: "
                     "only discrete (video, data) flows can be in device memory",
                     definition.idString, *options.deviceIndex);
            }
            config.continuous.channelCount = definition.channelCount;
            config.continuous.bufferLength = continuousBufferLength(definition.rate, historyNs, definition.sampleWordBytes);
        }
        else
        {
            std::copy(definition.sliceSizes.begin(), definition.sliceSizes.end(), config.discrete.sliceSizes);
            config.discrete.grainCount = discreteGrainCount(definition.rate, historyNs);
        }
        return config;
    }
}
