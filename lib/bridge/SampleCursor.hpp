// The source cursor of an audio flow: batches of the flow's commit hint (what its writer commits at once), paced on the
// TAI clock by sample index. Batch k is due at the timestamp of its last sample, an absolute deadline, so pacing never
// drifts; a batch whose time has passed (a source running behind, or the first one after connecting) goes at once.
#pragma once

#include "bridge/SourceCursor.hpp"

#include <string>

namespace mxl::bridge
{
    class SampleCursor final : public SourceCursor
    {
    public:
        SampleCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId);

        // The first batch ends at the newest sample the source committed: the present for a live source, and where a
        // source running behind real time is.
        std::uint64_t startAtPresent() override;
        void forgetPosition() noexcept override;
        [[nodiscard]] Read read() override;
        void advance(bool delivered) override;

    private:
        std::size_t _batchSamples;
        // The last sample of the batch at the cursor.
        std::uint64_t _head = 0;

        [[nodiscard]] std::uint64_t newestSampleIndex() const;
    };
}
