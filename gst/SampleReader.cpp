#include "SampleReader.hpp"

#include "ReaderStatus.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace mxl::gst
{
    SampleReader::SampleReader(mxlFlowReader reader, std::uint64_t samplesPerBuffer, std::uint64_t startIndex)
        : _reader{reader}
        , _samples{samplesPerBuffer}
        , _startIndex{startIndex}
    {
    }

    void SampleReader::setInfo(GstAudioInfo const& info)
    {
        _info = info;
    }

    bool SampleReader::begin()
    {
        if (_startIndex != 0)
        {
            _next = _startIndex;
            return true;
        }
        // A flow no writer has committed to yet has no samples: a block read by the clock would reach back before the
        // writer's first sample, and come out as whatever the ring held there. Reading waits for the first commit and
        // begins right after it.
        auto const head = headIndexOf(_reader);
        if (head == 0)
        {
            _waitedForWriter = true;
            return false;
        }
        _next = _waitedForWriter ? head + 1 : head + 1 - std::min(head, _samples);
        return true;
    }

    ReadResult SampleReader::next(std::atomic<bool> const& flushing)
    {
        while (!flushing)
        {
            if (!_next && !begin())
            {
                std::this_thread::sleep_for(std::chrono::nanoseconds{flowWaitSliceNs});
                continue;
            }
            auto const first = *_next;
            auto const last = first + _samples - 1;
            mxlWrappedMultiBufferSlice slices{};
            auto const status = mxlFlowReaderGetSamples(_reader, last, _samples, flowWaitSliceNs, &slices);
            switch (status)
            {
            case MXL_STATUS_OK:
            {
                auto* const buffer = copy(slices);
                *_next += _samples;
                // The writer may have rewritten the range while we copied: then the copy is torn and the block lost.
                if (mxlFlowReaderGetSamplesNonBlocking(_reader, last, _samples, &slices) != MXL_STATUS_OK)
                {
                    gst_buffer_unref(buffer);
                    return ReadResult{ReadResult::Kind::lost, nullptr, first, _samples};
                }
                return ReadResult{ReadResult::Kind::buffer, buffer, first, _samples};
            }
            case MXL_ERR_OUT_OF_RANGE_TOO_EARLY:
                break;
            case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
            {
                auto const newestFirst = headIndexOf(_reader) + 1 - _samples;
                _next = std::max(newestFirst, first + _samples);
                return ReadResult{ReadResult::Kind::lost, nullptr, first, *_next - first};
            }
            default:
                return endedOrFailed(status, "mxlFlowReaderGetSamples", last);
            }
        }
        return ReadResult{ReadResult::Kind::flushing};
    }

    GstBuffer* SampleReader::copy(mxlWrappedMultiBufferSlice const& slices) const
    {
        auto const sampleBytes = static_cast<std::size_t>(GST_AUDIO_INFO_BPS(&_info));
        auto const channels = static_cast<std::size_t>(GST_AUDIO_INFO_CHANNELS(&_info));
        auto const interleaved = GST_AUDIO_INFO_LAYOUT(&_info) == GST_AUDIO_LAYOUT_INTERLEAVED;
        auto* const buffer = gst_buffer_new_allocate(nullptr, _samples * channels * sampleBytes, nullptr);
        GstMapInfo map;
        gst_buffer_map(buffer, &map, GST_MAP_WRITE);
        for (std::size_t channel = 0; channel < std::min<std::size_t>(channels, slices.count); ++channel)
        {
            std::size_t sample = 0;
            for (auto const& fragment : slices.base.fragments)
            {
                auto const* const source = static_cast<std::uint8_t const*>(fragment.pointer) + channel * slices.stride;
                auto const fragmentSamples = fragment.size / sampleBytes;
                if (interleaved)
                {
                    auto* const target = map.data + (sample * channels + channel) * sampleBytes;
                    for (std::size_t i = 0; i < fragmentSamples; ++i)
                    {
                        std::memcpy(target + i * channels * sampleBytes, source + i * sampleBytes, sampleBytes);
                    }
                }
                else
                {
                    std::memcpy(map.data + (channel * _samples + sample) * sampleBytes, source, fragment.size);
                }
                sample += fragmentSamples;
            }
        }
        gst_buffer_unmap(buffer, &map);
        if (!interleaved)
        {
            gst_buffer_add_audio_meta(buffer, &_info, _samples, nullptr);
        }
        return buffer;
    }
}
