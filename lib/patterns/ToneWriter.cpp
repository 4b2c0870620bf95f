#include "ToneWriter.hpp"

#include "Pacing.hpp"
#include "SineTone.hpp"
#include <client/ClientError.hpp>
#include <common/StatusName.hpp>

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace mxl::patterns
{
    namespace
    {
        void check(mxlStatus status, char const* call, std::uint64_t index)
        {
            if (status != MXL_STATUS_OK)
            {
                throw client::ClientError{client::ErrorKind::Failure,
                                          fmt::format("{} of audio samples ending at {} failed: {}", call, index, statusName(status))};
            }
        }

        // Writes the tone of `channel` into one contiguous piece of its ring, whose first sample is `firstSample`.
        void fillFragment(void* pointer, std::size_t bytes, std::size_t wordBytes, std::uint32_t channel, std::uint64_t firstSample,
                          mxlRational const& rate, patterns::ToneTable const* table)
        {
            auto const fill = [&](auto samples)
            {
                if (table != nullptr)
                {
                    table->fill(samples, channel, firstSample);
                    return;
                }
                patterns::fillTone(samples, channel, firstSample, rate);
            };
            auto const samples = bytes / wordBytes;
            if (wordBytes == sizeof(double))
            {
                fill(std::span<double>{static_cast<double*>(pointer), samples});
                return;
            }
            fill(std::span<float>{static_cast<float*>(pointer), samples});
        }
    }

    ToneWriter::ToneWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, std::uint64_t batchLimit, bool prerendered,
                           WriterStats& stats)
        : _writer{writer}
        , _rate{config.common.grainRate}
        , _batchLimit{batchLimit}
        , _stats{stats}
    {
        if (prerendered)
        {
            _table.emplace(config.continuous.channelCount, _rate);
        }
        std::size_t maxWrite = 0;
        check(mxlFlowWriterGetMaxWriteLengthSamples(_writer, &maxWrite), "mxlFlowWriterGetMaxWriteLengthSamples", 0);
        _readableSamples = maxWrite;
        _batchSamples = std::clamp<std::uint64_t>(config.common.maxCommitBatchSizeHint, 1, std::max<std::uint64_t>(1, maxWrite));
        _batchEnd = (currentIndex(_rate) / _batchSamples + 1) * _batchSamples;
    }

    std::uint64_t ToneWriter::nextDeadlineNs() const
    {
        return indexTimestampNs(_rate, _batchEnd);
    }

    bool ToneWriter::finished() const
    {
        return _batchLimit != 0 && _batchesDone >= _batchLimit;
    }

    void ToneWriter::run(std::uint64_t lateNs)
    {
        skipUnreachableBatches();
        if (finished())
        {
            return;
        }
        auto const batchDeadline = indexTimestampNs(_rate, _batchEnd);
        auto const nextBatchDeadline = indexTimestampNs(_rate, _batchEnd + _batchSamples);
        bool const silence = mxlGetTime() >= nextBatchDeadline;
        writeBatch(silence);
        if (silence)
        {
            ++_stats.invalid;
        }
        else
        {
            ++_stats.written;
            if (lateNs > (nextBatchDeadline - batchDeadline) / 2)
            {
                ++_stats.late;
            }
        }
        _batchEnd += _batchSamples;
        ++_batchesDone;
    }

    void ToneWriter::skipUnreachableBatches()
    {
        auto const now = currentIndex(_rate);
        if (now < _batchEnd + _readableSamples)
        {
            return;
        }
        auto skipped = (now - _batchEnd) / _batchSamples;
        if (_batchLimit != 0)
        {
            skipped = std::min(skipped, _batchLimit - _batchesDone);
        }
        _batchEnd += skipped * _batchSamples;
        _batchesDone += skipped;
        _stats.invalid += skipped;
    }

    void ToneWriter::writeBatch(bool silence)
    {
        mxlMutableWrappedMultiBufferSlice slices{};
        check(mxlFlowWriterOpenSamples(_writer, _batchEnd, _batchSamples, &slices), "mxlFlowWriterOpenSamples", _batchEnd);
        auto const& fragments = slices.base.fragments;
        auto const wordBytes = (fragments[0].size + fragments[1].size) / _batchSamples;
        for (std::size_t channel = 0; channel < slices.count; ++channel)
        {
            auto firstSample = _batchEnd - _batchSamples + 1;
            for (auto const& fragment : fragments)
            {
                if (fragment.size == 0)
                {
                    continue;
                }
                auto* const pointer = static_cast<std::uint8_t*>(fragment.pointer) + channel * slices.stride;
                if (silence)
                {
                    std::memset(pointer, 0, fragment.size);
                }
                else
                {
                    fillFragment(pointer, fragment.size, wordBytes, static_cast<std::uint32_t>(channel), firstSample, _rate,
                                 _table ? &*_table : nullptr);
                }
                firstSample += fragment.size / wordBytes;
            }
        }
        check(mxlFlowWriterCommitSamples(_writer), "mxlFlowWriterCommitSamples", _batchEnd);
    }
}
