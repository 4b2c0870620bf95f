// The target half of the sample protocol (Wire.hpp): remote CQ data names the bounce-buffer entry an initiator
// filled; its header says which samples it holds. Both are checked before any byte is copied into the flow's ring.
#pragma once

#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include "fabrics/protocol/AudioBounceBuffer.hpp"

#include <optional>

namespace mxl::fabrics
{
    class SampleIngress
    {
    public:
        // Sizes the bounce buffer from the writer's flow: batches of its sync hint, a whole ring's worth of entries.
        explicit SampleIngress(mxlFlowWriter writer);

        [[nodiscard]] AudioBounceBuffer const& bounceBuffer() const noexcept
        {
            return _bounce;
        }

        // Validates entry index and header, copies the entry into the ring (OpenSamples gives this target's own placement)
        // and commits it, which moves the head and wakes readers. An entry whose samples are older than ones already
        // committed was overwritten by a later batch before it was read: OUT_OF_RANGE_TOO_LATE, nothing is touched.
        mxlFabricsSamplesArrival arrive(std::uint32_t immediate);

    private:
        mxlFlowWriter _writer;
        SampleGeometry _geometry;
        AudioBounceBuffer _bounce;
        std::size_t _capacity;
        std::optional<std::uint64_t> _lastHead;
    };
}
