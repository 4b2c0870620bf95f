#include "AudioLoop.hpp"

#include "FlowWait.hpp"
#include "SamplePattern.hpp"

#include <mxl/time.h>

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <thread>

namespace mxl::test
{
    namespace
    {
        // Far enough in the past that a run of several minutes of audio stays in the past.
        constexpr std::uint64_t pastSeconds = 600;
    }

    AudioLoop::AudioLoop(std::string const& sourceDomain, std::string const& definition, std::string const& writerOptions,
                         std::uint32_t seed)
        : _flowId{nlohmann::json::parse(definition).at("id").get<std::string>()}
        , _seed{seed}
        , _source{sourceDomain}
        , _writer{_source, definition, writerOptions, "the audio source's definition"}
    {
        auto const& config = _writer.config();
        _batch = config.common.maxCommitBatchSizeHint;
        _channels = config.continuous.channelCount;
        auto const rate = config.common.grainRate;
        auto const now = mxlGetCurrentIndex(&rate);
        // Batch-aligned, like a source committing in batches of its hint.
        _firstHead = (now - pastSeconds * static_cast<std::uint64_t>(rate.numerator / rate.denominator)) / _batch * _batch;
    }

    bool AudioLoop::prime()
    {
        _written = 1;
        return writePatternSamples(_writer.get(), _firstHead, _batch, _seed);
    }

    void AudioLoop::attachTarget(std::string const& targetDomain)
    {
        client::Instance target{targetDomain};
        // The reader first: one already there is released while its instance still lives.
        _reader = readerWhenThere(target, _flowId);
        _target = std::move(target);
    }

    AudioRunResult AudioLoop::run(std::size_t batches, std::size_t lead, std::chrono::milliseconds timeout)
    {
        AudioRunResult result;
        auto const start = std::chrono::steady_clock::now();
        auto const deadline = start + timeout;
        std::size_t checked = 0;
        while (checked < batches && std::chrono::steady_clock::now() < deadline)
        {
            bool progressed = false;
            // Nothing more until the primed batch arrived: the initiator starts at the source's newest sample, which must
            // be that one.
            if (checked > 0 && _written < batches && (lead == 0 || _written < checked + lead))
            {
                if (!writePatternSamples(_writer.get(), _firstHead + _written * _batch, _batch, _seed))
                {
                    throw std::runtime_error{"the audio source refused a batch"};
                }
                ++_written;
                progressed = true;
            }
            // Every batch that has arrived is checked before the next one is written, so that a busy loop never lets the
            // target's ring overwrite a batch before its check.
            mxlFlowRuntimeInfo runtime{};
            for (auto head = _firstHead + checked * _batch;
                 checked < batches && mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime) == MXL_STATUS_OK && runtime.headIndex >= head;
                 head = _firstHead + checked * _batch)
            {
                result.samples += checkSampleRange(_reader.get(), head, _batch, _channels, _seed);
                ++checked;
                progressed = true;
            }
            if (!progressed)
            {
                std::this_thread::sleep_for(std::chrono::microseconds{200});
            }
        }
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    }
}
