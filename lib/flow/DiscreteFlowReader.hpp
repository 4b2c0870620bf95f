// Reads grains of a video or data flow (spec §4.4 with the upstream hardening of #681, #692).
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

        // Updates the access file's atime, which the writers' DomainWatchers turn into lastReadTime.
        void touchAccessFile() noexcept;

        int _accessFd = -1;
    };
}
