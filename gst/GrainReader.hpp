// mxlsrc's video and data side: reads grains one after the other from the start index, waiting on the flow for each. A
// grain rewritten before it could be read (the source fell a ring behind) sends the reader to the head; a grain the
// writer skipped or flagged invalid is reported, not read. Payloads are copied: the slot is the writer's again a ring
// later. A video buffer is the whole grain, a data buffer the grain's RFC 8331 payload (Rfc8331Payload.hpp).
#pragma once

#include "ReadResult.hpp"

#include <mxl/flow.h>

#include <atomic>
#include <cstdint>
#include <optional>

namespace mxl::gst
{
    class GrainReader
    {
    public:
        // `startIndex` 0: start at the head (the newest grain; the current index while the flow is empty).
        GrainReader(mxlFlowReader reader, mxlFlowConfigInfo const& config, std::uint64_t startIndex);

        ReadResult next(std::atomic<bool> const& flushing);

    private:
        mxlFlowReader _reader;
        mxlRational _rate;
        bool _rfc8331Payloads;
        std::uint64_t _startIndex;
        std::optional<std::uint64_t> _next;

        ReadResult copy(std::uint64_t index, mxlGrainInfo const& info, std::uint8_t const* payload);
        std::size_t bufferBytes(mxlGrainInfo const& info, std::uint8_t const* payload) const;
    };
}
