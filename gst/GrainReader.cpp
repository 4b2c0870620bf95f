#include "GrainReader.hpp"

#include "ReaderStatus.hpp"
#include "Rfc8331Payload.hpp"

#include <mxl/time.h>

namespace mxl::gst
{
    GrainReader::GrainReader(mxlFlowReader reader, mxlFlowConfigInfo const& config, std::uint64_t startIndex)
        : _reader{reader}
        , _rate{config.common.grainRate}
        , _rfc8331Payloads{config.common.format == MXL_DATA_FORMAT_DATA}
        , _startIndex{startIndex}
    {
    }

    ReadResult GrainReader::next(std::atomic<bool> const& flushing)
    {
        if (!_next)
        {
            auto const head = headIndexOf(_reader);
            _next = _startIndex != 0 ? _startIndex : head != 0 ? head : mxlGetCurrentIndex(&_rate);
        }
        while (!flushing)
        {
            auto const index = *_next;
            mxlGrainInfo info;
            std::uint8_t* payload = nullptr;
            auto const status = mxlFlowReaderGetGrain(_reader, index, flowWaitSliceNs, &info, &payload);
            switch (status)
            {
            case MXL_STATUS_OK:
                ++*_next;
                if ((info.flags & MXL_GRAIN_FLAG_INVALID) != 0)
                {
                    return ReadResult{ReadResult::Kind::invalid, nullptr, index, 1};
                }
                return copy(index, info, payload);
            case MXL_ERR_OUT_OF_RANGE_TOO_EARLY:
                // Not there yet, unless the writer has gone past it and left its slot to an older grain.
                if (headIndexOf(_reader) > index)
                {
                    ++*_next;
                    return ReadResult{ReadResult::Kind::lost, nullptr, index, 1};
                }
                break;
            case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
            {
                auto const head = headIndexOf(_reader);
                _next = std::max(head, index + 1);
                return ReadResult{ReadResult::Kind::lost, nullptr, index, *_next - index};
            }
            default:
                return endedOrFailed(status, "mxlFlowReaderGetGrain", index);
            }
        }
        return ReadResult{ReadResult::Kind::flushing};
    }

    ReadResult GrainReader::copy(std::uint64_t index, mxlGrainInfo const& info, std::uint8_t const* payload)
    {
        auto const bytes = bufferBytes(info, payload);
        auto* const buffer = gst_buffer_new_allocate(nullptr, bytes, nullptr);
        gst_buffer_fill(buffer, 0, payload, bytes);
        // The writer may have reopened the slot while we copied: then the copy is torn and the grain counts as lost.
        mxlGrainInfo after;
        std::uint8_t* unused = nullptr;
        if (mxlFlowReaderGetGrainNonBlocking(_reader, index, &after, &unused) != MXL_STATUS_OK)
        {
            gst_buffer_unref(buffer);
            return ReadResult{ReadResult::Kind::lost, nullptr, index, 1};
        }
        return ReadResult{ReadResult::Kind::buffer, buffer, index, 1};
    }

    std::size_t GrainReader::bufferBytes(mxlGrainInfo const& info, std::uint8_t const* payload) const
    {
        if (!_rfc8331Payloads)
        {
            return info.grainSize;
        }
        // A Length field beyond the grain is not the writer's payload to trim: the grain goes out whole, unchanged.
        auto const declared = rfc8331PayloadBytes({payload, info.grainSize});
        return declared && *declared <= info.grainSize ? *declared : info.grainSize;
    }
}
