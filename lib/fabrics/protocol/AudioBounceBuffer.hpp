// A continuous-flow target's landing area, as in the SDK's lib/fabrics/ofi/src/internal/AudioBounceBuffer.cpp:
// `entryCount` entries of [16-byte header][channel-major samples], each registered as its own remote region.
// Initiators write whole batches into an entry and name it in the remote CQ data; the target copies the entry into its
// own ring, whose length may differ from the initiator's.
#pragma once

#include "fabrics/protocol/RegionSpans.hpp"
#include "fabrics/protocol/SampleGeometry.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <cstdlib>
#include <memory>

namespace mxl::fabrics
{
    class AudioBounceBuffer
    {
    public:
        explicit AudioBounceBuffer(BounceLayout const& layout);

        [[nodiscard]] BounceLayout const& layout() const noexcept
        {
            return _layout;
        }

        [[nodiscard]] BounceBufferInfo info() const noexcept
        {
            return {_layout.entryCount, _layout.entryBytes};
        }

        [[nodiscard]] std::uint8_t const* entry(std::size_t index) const noexcept
        {
            return _memory.get() + index * _layout.entryBytes;
        }

        [[nodiscard]] RegionSpans spans() const;

    private:
        struct Free
        {
            void operator()(std::uint8_t* memory) const noexcept
            {
                std::free(memory);
            }
        };

        BounceLayout _layout;
        // One page-aligned allocation; entries are consecutive slices of it.
        std::unique_ptr<std::uint8_t, Free> _memory;
    };
}
