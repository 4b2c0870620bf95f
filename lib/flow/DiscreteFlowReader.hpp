// Reads grains of a video or data flow by the SDK's rules with the upstream hardening of #681, #692
// (docs/flow-behaviour.md, "Discrete reads").
#pragma once

#include "FlowReader.hpp"

#include <cstdint>

namespace mxl
{
    class DiscreteFlowReader final : public FlowReader
    {
    public:
        DiscreteFlowReader(Domain const& domain, std::string canonicalId, FlowFiles files);
        ~DiscreteFlowReader() override;

        DiscreteFlowReader(DiscreteFlowReader const&) = delete;
        DiscreteFlowReader& operator=(DiscreteFlowReader const&) = delete;

        // Waits until grain `index` has `minValidSlices` slices (clamped to the grain) or is flagged invalid; on OK
        // copies its header to `grain`, points `payload` into shared memory and marks the flow as read.
        mxlStatus getGrain(std::uint64_t index, std::uint16_t minValidSlices, std::uint64_t timeoutNs, mxlGrainInfo& grain,
                           std::uint8_t*& payload);

        // The same wait without touching `access` or producing the grain (synchronization groups).
        mxlStatus waitForGrain(std::uint64_t index, std::uint16_t minValidSlices, std::uint64_t deadlineNs) const;

    private:
        mxlStatus tryGetGrain(std::uint64_t index, std::uint16_t minValidSlices, mxlGrainInfo* grain, std::uint8_t** payload) const;

        // Updates the access file's atime, which the writers' DomainWatchers turn into lastReadTime: on the first read,
        // then at most once per accessTouchIntervalNs. A touch is a system call and wakes every writer's watcher thread;
        // paid on each read it tripled the commit-to-wake latency of a reader on the writer's vCPU (docs/performance.md).
        void touchAccessFile() noexcept;

        static constexpr std::uint64_t accessTouchIntervalNs = 100'000'000;

        int _accessFd = -1;
        // CLOCK_MONOTONIC time of the last touch; 0 before the first.
        std::uint64_t _lastTouchNs = 0;
    };
}
