#include "SyncConsumer.hpp"

#include "ToolError.hpp"

#include <ExitRequest.hpp>

#include <mxl/dataformat.h>
#include <mxl/time.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace mxl::demo
{
    namespace
    {
        // Short enough to see a signal promptly.
        constexpr std::uint64_t waitTimeoutNs = 200'000'000;

        bool continuous(mxlFlowConfigInfo const& config)
        {
            return mxlIsContinuousDataFormat(static_cast<int>(config.common.format)) != 0;
        }

        double microseconds(std::int64_t nanoseconds)
        {
            return static_cast<double>(nanoseconds) / 1000.0;
        }
    }

    SyncConsumer::SyncConsumer(std::string const& domain, std::vector<std::string> const& flowIds)
        : _instance{domain}
        , _group{_instance.get()}
    {
        bool clockFound = false;
        for (auto const& id : flowIds)
        {
            auto& member = _members.emplace_back(Member{id, client::FlowReader{_instance, id}, {}});
            ::mxlFlowReaderGetConfigInfo(member.reader.get(), &member.config);
            if (auto const status = ::mxlFlowSynchronizationGroupAddReader(_group.get(), member.reader.get()); status != MXL_STATUS_OK)
            {
                tools::runtimeFailure("cannot add flow {} to the synchronization group (mxlStatus {})", id, static_cast<int>(status));
            }
            if (!clockFound && !continuous(member.config))
            {
                _clock = _members.size() - 1;
                clockFound = true;
            }
        }
        if (!clockFound)
        {
            tools::badInput("a source needs a video or data flow to pace its synchronization group; all {} flows carry audio",
                            flowIds.size());
        }
    }

    bool SyncConsumer::readableAt(std::uint64_t index, std::uint64_t timestampNs) const
    {
        for (std::size_t i = 0; i < _members.size(); ++i)
        {
            auto const& member = _members[i];
            auto const& rate = member.config.common.grainRate;
            auto const own = i == _clock ? index : ::mxlTimestampToIndex(&rate, timestampNs);
            auto status = MXL_STATUS_OK;
            if (continuous(member.config))
            {
                mxlWrappedMultiBufferSlice slices{};
                status = ::mxlFlowReaderGetSamplesNonBlocking(
                    member.reader.get(), own, std::max<std::uint32_t>(member.config.common.maxCommitBatchSizeHint, 1), &slices);
            }
            else
            {
                mxlGrainInfo info{};
                std::uint8_t* payload = nullptr;
                status = ::mxlFlowReaderGetGrainNonBlocking(member.reader.get(), own, &info, &payload);
            }
            if (status != MXL_STATUS_OK)
            {
                fmt::print(stderr,
                           "mxl-fabrics-demo: warning: flow {} has no data at index {} although the group returned (mxlStatus {})\n",
                           member.id, own, static_cast<int>(status));
                return false;
            }
        }
        return true;
    }

    void SyncConsumer::run()
    {
        auto const rate = _members[_clock].config.common.grainRate;
        // From the first grain that arrives: the grains before the transfers began never will.
        std::uint64_t index = 0;
        while (index == 0 && !tools::exitRequested())
        {
            mxlFlowRuntimeInfo runtime{};
            ::mxlFlowReaderGetRuntimeInfo(_members[_clock].reader.get(), &runtime);
            index = runtime.headIndex;
            std::this_thread::sleep_for(std::chrono::milliseconds{5});
        }
        while (!tools::exitRequested())
        {
            auto const timestampNs = ::mxlIndexToTimestamp(&rate, index);
            auto const status = ::mxlFlowSynchronizationGroupWaitForDataAt(_group.get(), timestampNs, waitTimeoutNs);
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                // This consumer fell out of a ring: resume at the present.
                index = ::mxlGetCurrentIndex(&rate);
                continue;
            }
            if (status != MXL_STATUS_OK)
            {
                // Not there yet (timeout, interrupted): wait again for the same grain.
                continue;
            }
            // The newest samples first, as close as possible to the group's return.
            std::string skews;
            std::uint32_t batchNs = 0;
            for (auto const& member : _members)
            {
                if (!continuous(member.config))
                {
                    continue;
                }
                mxlFlowRuntimeInfo runtime{};
                ::mxlFlowReaderGetRuntimeInfo(member.reader.get(), &runtime);
                auto const& audioRate = member.config.common.grainRate;
                auto const skewNs = static_cast<std::int64_t>(::mxlIndexToTimestamp(&audioRate, runtime.headIndex) - timestampNs);
                skews += fmt::format("{}{:.0f}", skews.empty() ? "" : ",", microseconds(skewNs));
                batchNs = std::max(
                    batchNs, static_cast<std::uint32_t>(::mxlIndexToTimestamp(&audioRate, member.config.common.maxCommitBatchSizeHint) -
                                                        ::mxlIndexToTimestamp(&audioRate, 0)));
            }
            bool const complete = readableAt(index, timestampNs);
            fmt::print("sync: grain={} video_ts={} skews_us={} batch_us={:.0f}{}\n", index, timestampNs, skews, batchNs / 1000.0,
                       complete ? "" : " incomplete");
            ++index;
        }
    }
}
