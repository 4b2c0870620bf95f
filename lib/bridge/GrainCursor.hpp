// The source cursor of a video or data flow: one grain per transfer, the whole grain once its writer committed it, or
// (by slices) each slice range as its writer commits it. The source's own commits pace it: a blocking read returns when
// the grain or the next slice is there.
#pragma once

#include "bridge/SourceCursor.hpp"

#include <string>

namespace mxl::bridge
{
    class GrainCursor final : public SourceCursor
    {
    public:
        GrainCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId, GrainReading reading);

        std::uint64_t startAtPresent() override;
        void forgetPosition() noexcept override;
        [[nodiscard]] Read read() override;
        void advance(bool delivered) override;

    private:
        GrainReading _reading;
        std::uint64_t _bytesPerSlice = 0;
        std::uint64_t _index = 0;
        // By slices: the slices of the grain at the cursor sent so far, and where the last unit read ended.
        std::uint16_t _sentSlices = 0;
        std::uint16_t _readEnd = 0;
        bool _readCompletes = true;
    };
}
