#include "fabrics/protocol/AudioBounceBuffer.hpp"

#include "common/Status.hpp"

#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::size_t pageBytes = 4096;
    }

    AudioBounceBuffer::AudioBounceBuffer(BounceLayout const& layout)
        : _layout{layout}
    {
        auto const total = (layout.entryCount * layout.entryBytes + pageBytes - 1) / pageBytes * pageBytes;
        _memory.reset(static_cast<std::uint8_t*>(std::aligned_alloc(pageBytes, total)));
        if (!_memory)
        {
            fail(MXL_ERR_UNKNOWN, "cannot allocate a bounce buffer of {} entries of {} bytes", layout.entryCount, layout.entryBytes);
        }
        std::memset(_memory.get(), 0, total);
    }

    RegionSpans AudioBounceBuffer::spans() const
    {
        RegionSpans result;
        result.reserve(_layout.entryCount);
        for (std::size_t index = 0; index < _layout.entryCount; ++index)
        {
            result.emplace_back(_memory.get() + index * _layout.entryBytes, _layout.entryBytes);
        }
        return result;
    }
}
