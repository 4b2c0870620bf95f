#include "AudioSamples.hpp"

#include "ToolError.hpp"
#include "common/StatusName.hpp"

#include <algorithm>
#include <cstring>

namespace mxl::tools::info
{
    namespace
    {
        std::vector<float> channelSamples(mxlWrappedMultiBufferSlice const& slices, std::size_t channel)
        {
            std::vector<float> samples;
            for (auto const& fragment : slices.base.fragments)
            {
                auto const* bytes = static_cast<std::uint8_t const*>(fragment.pointer) + channel * slices.stride;
                auto const count = fragment.size / sizeof(float);
                auto const at = samples.size();
                samples.resize(at + count);
                if (count > 0)
                {
                    std::memcpy(samples.data() + at, bytes, count * sizeof(float));
                }
            }
            return samples;
        }
    }

    AudioRange recentRange(mxlFlowReader reader, std::string const& flowId, std::size_t count)
    {
        mxlFlowInfo info{};
        std::size_t maxRead = 0;
        if (auto const status = mxlFlowReaderGetInfo(reader, &info); status != MXL_STATUS_OK)
        {
            runtimeFailure("mxlFlowReaderGetInfo for flow {} failed: {}", flowId, statusName(status));
        }
        if (auto const status = mxlFlowReaderGetMaxReadLengthSamples(reader, &maxRead); status != MXL_STATUS_OK)
        {
            runtimeFailure("mxlFlowReaderGetMaxReadLengthSamples for flow {} failed: {}", flowId, statusName(status));
        }
        return AudioRange{info.runtime.headIndex, std::max<std::size_t>(1, std::min(count, maxRead))};
    }

    std::vector<std::vector<float>> copySamples(mxlFlowReader reader, AudioRange const& range, std::uint64_t timeoutNs, mxlStatus& status)
    {
        mxlWrappedMultiBufferSlice slices{};
        status = mxlFlowReaderGetSamples(reader, range.index, range.count, timeoutNs, &slices);
        if (status != MXL_STATUS_OK)
        {
            return {};
        }
        std::vector<std::vector<float>> channels;
        for (std::size_t channel = 0; channel < slices.count; ++channel)
        {
            channels.push_back(channelSamples(slices, channel));
        }
        status = mxlFlowReaderGetSamplesNonBlocking(reader, range.index, range.count, &slices);
        if (status != MXL_STATUS_OK)
        {
            return {};
        }
        return channels;
    }
}
