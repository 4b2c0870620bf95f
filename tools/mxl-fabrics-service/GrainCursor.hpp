// The source cursor of a video or data flow: one grain per transfer, the whole grain once its writer committed it. The
// source's own commits pace it: a blocking read returns when the grain is there.
#pragma once

#include "SourceCursor.hpp"

#include <string>

namespace mxl::service
{
    class GrainCursor final : public SourceCursor
    {
    public:
        GrainCursor(mxlFlowReader reader, mxlFlowConfigInfo const& flow, std::string flowId);

        [[nodiscard]] TransferUnit unit() const noexcept override
        {
            return TransferUnit::Grain;
        }

        void startAtPresent() override;
        [[nodiscard]] Read read() override;
        [[nodiscard]] mxlStatus post(mxlFabricsInitiator initiator, SourceUnit const& unit) const override;
        void advance() override;

    private:
        mxlFlowReader _reader;
        mxlRational _rate;
        std::string _flowId;
        std::uint64_t _bytesPerSlice = 0;
        std::uint64_t _index = 0;
    };
}
