#include "SampleWriter.hpp"

#include "StatusCheck.hpp"

#include <mxl/time.h>

#include <algorithm>
#include <cstring>

namespace mxl::gst
{
    namespace
    {
        // GstAudioBaseSink's default alignment threshold: differences below it are timestamp jitter, not gaps.
        constexpr std::uint64_t alignmentThresholdNs = 40'000'000;
    }

    SampleWriter::SampleWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, std::uint32_t sampleBytes, SinkCounters& counters)
        : _writer{writer}
        , _rate{config.common.grainRate}
        , _sampleBytes{sampleBytes}
        , _alignmentSamples{static_cast<std::uint64_t>(alignmentThresholdNs * _rate.numerator / (_rate.denominator * 1'000'000'000LL))}
        , _counters{counters}
    {
        std::size_t maxWrite = 0;
        checkStatus(mxlFlowWriterGetMaxWriteLengthSamples(_writer, &maxWrite), "mxlFlowWriterGetMaxWriteLengthSamples", 0);
        _maxWriteSamples = std::max<std::uint64_t>(1, maxWrite);
    }

    void SampleWriter::write(std::optional<std::uint64_t> firstIndex, GstAudioBuffer const& audio, bool paced)
    {
        auto const samples = static_cast<std::uint64_t>(audio.n_samples);
        if (samples == 0)
        {
            return;
        }
        auto first = firstIndex.value_or(_next.value_or(mxlGetCurrentIndex(&_rate)));
        if (_next)
        {
            auto const expected = *_next;
            if (first + _alignmentSamples < expected)
            {
                ++_counters.dropped;
                return;
            }
            if (first <= expected + _alignmentSamples)
            {
                first = expected;
            }
            else
            {
                _counters.skipped += first - expected;
            }
        }
        auto const last = first + samples - 1;
        _next = last + 1;
        if (paced && last + _maxWriteSamples <= mxlGetCurrentIndex(&_rate))
        {
            ++_counters.late;
            return;
        }
        for (std::uint64_t offset = 0; offset < samples; offset += _maxWriteSamples)
        {
            auto const count = std::min(_maxWriteSamples, samples - offset);
            writeChunk(audio, offset, count, first + offset + count - 1);
        }
        ++_counters.written;
    }

    void SampleWriter::writeChunk(GstAudioBuffer const& audio, std::uint64_t bufferOffset, std::uint64_t count, std::uint64_t lastIndex)
    {
        mxlMutableWrappedMultiBufferSlice slices{};
        checkStatus(mxlFlowWriterOpenSamples(_writer, lastIndex, count, &slices), "mxlFlowWriterOpenSamples", lastIndex);
        auto const channels = static_cast<std::size_t>(GST_AUDIO_INFO_CHANNELS(&audio.info));
        auto const interleaved = GST_AUDIO_INFO_LAYOUT(&audio.info) == GST_AUDIO_LAYOUT_INTERLEAVED;
        for (std::size_t channel = 0; channel < std::min<std::size_t>(channels, slices.count); ++channel)
        {
            auto sample = bufferOffset;
            for (auto const& fragment : slices.base.fragments)
            {
                auto* const target = static_cast<std::uint8_t*>(fragment.pointer) + channel * slices.stride;
                auto const fragmentSamples = fragment.size / _sampleBytes;
                if (interleaved)
                {
                    auto const* const source =
                        static_cast<std::uint8_t const*>(audio.planes[0]) + (sample * channels + channel) * _sampleBytes;
                    for (std::size_t i = 0; i < fragmentSamples; ++i)
                    {
                        std::memcpy(target + i * _sampleBytes, source + i * channels * _sampleBytes, _sampleBytes);
                    }
                }
                else
                {
                    std::memcpy(target, static_cast<std::uint8_t const*>(audio.planes[channel]) + sample * _sampleBytes, fragment.size);
                }
                sample += fragmentSamples;
            }
        }
        checkStatus(mxlFlowWriterCommitSamples(_writer), "mxlFlowWriterCommitSamples", lastIndex);
    }
}
