#include "fabrics/protocol/SampleIngress.hpp"

#include "common/Status.hpp"

#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        SampleGeometry geometryOf(mxlFlowWriter writer)
        {
            if (writer == nullptr)
            {
                fail(MXL_ERR_INVALID_ARG, "the target config has no flow writer");
            }
            return SampleGeometry::of(writer->memory, "target");
        }

        std::size_t batchOf(mxlFlowWriter writer)
        {
            return writer->memory.data->info.config.common.maxSyncBatchSizeHint;
        }
    }

    SampleIngress::SampleIngress(mxlFlowWriter writer)
        : _writer{writer}
        , _geometry{geometryOf(writer)}
        , _bounce{bounceLayout(_geometry, batchOf(writer))}
        , _capacity{entryCapacity(_bounce.layout().entryBytes, _geometry.frameBytes())}
    {
    }

    mxlFabricsSamplesArrival SampleIngress::arrive(std::uint32_t immediate)
    {
        auto const& layout = _bounce.layout();
        if (immediate >= layout.entryCount)
        {
            fail(MXL_ERR_INVALID_ARG, "an initiator completed bounce-buffer entry {}, but this target has {} entries", immediate,
                 layout.entryCount);
        }
        auto const* entry = _bounce.entry(immediate);
        wire::SampleEntryHeader header;
        std::memcpy(&header, entry, sizeof(header));
        if (header.count == 0)
        {
            fail(MXL_ERR_OUT_OF_RANGE_TOO_LATE,
                 "bounce-buffer entry {} is being rewritten by a later transfer (it holds the in-flight mark): the batch this completion "
                 "announced was overwritten before this target read it; those samples are lost",
                 immediate);
        }
        if (header.count > _capacity)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "bounce-buffer entry {} claims {} samples per channel; an entry holds 1 to {} ({} channels of {} bytes)", immediate,
                 header.count, _capacity, _geometry.channels(), _geometry.wordBytes());
        }
        // A restarted source may begin anywhere; only a head within the bounce buffer's reach behind ours is a stale entry.
        auto const reach = std::uint64_t{layout.entryCount} * _capacity;
        if (_lastHead && header.headIndex <= *_lastHead && *_lastHead - header.headIndex < reach)
        {
            fail(MXL_ERR_OUT_OF_RANGE_TOO_LATE,
                 "bounce-buffer entry {} holds samples up to {}, but samples up to {} are already committed: an initiator overwrote the "
                 "entry before this target read it (it ran {} entries ahead); those samples are lost",
                 immediate, header.headIndex, *_lastHead, layout.entryCount);
        }

        auto const count = static_cast<std::size_t>(header.count);
        mxlMutableWrappedMultiBufferSlice slices{};
        if (auto const status = mxlFlowWriterOpenSamples(_writer, header.headIndex, count, &slices); status != MXL_STATUS_OK)
        {
            fail(status, "could not open samples up to {} (count {}) of the target's flow: status {}", header.headIndex, count,
                 static_cast<int>(status));
        }
        std::array<std::uint8_t*, 2> const starts{static_cast<std::uint8_t*>(slices.base.fragments[0].pointer),
                                                  static_cast<std::uint8_t*>(slices.base.fragments[1].pointer)};
        std::array<std::size_t, 2> const counts{slices.base.fragments[0].size / _geometry.wordBytes(),
                                                slices.base.fragments[1].size / _geometry.wordBytes()};
        unpackEntry(entry + sizeof(wire::SampleEntryHeader), count, _geometry.channels(), _geometry.wordBytes(), starts, counts,
                    slices.stride);
        if (auto const status = mxlFlowWriterCommitSamples(_writer); status != MXL_STATUS_OK)
        {
            fail(status, "could not commit samples up to {} (count {}): status {}", header.headIndex, count, static_cast<int>(status));
        }
        _lastHead = header.headIndex;
        return {header.headIndex, count};
    }
}
