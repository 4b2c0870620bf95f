#include "AudioLoop.hpp"

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
        , _source{mxlCreateInstance(sourceDomain.c_str(), nullptr)}
    {
        mxlFlowConfigInfo config{};
        if (_source == nullptr || mxlCreateFlowWriter(_source, definition.c_str(), writerOptions.empty() ? nullptr : writerOptions.c_str(),
                                                      &_writer, &config, nullptr) != MXL_STATUS_OK)
        {
            throw std::runtime_error{"cannot create the audio source flow in " + sourceDomain};
        }
        _batch = config.common.maxCommitBatchSizeHint;
        _channels = config.continuous.channelCount;
        auto const rate = config.common.grainRate;
        auto const now = mxlGetCurrentIndex(&rate);
        // Batch-aligned, like a source committing in batches of its hint.
        _firstHead = (now - pastSeconds * static_cast<std::uint64_t>(rate.numerator / rate.denominator)) / _batch * _batch;
    }

    AudioLoop::~AudioLoop()
    {
        if (_reader != nullptr)
        {
            mxlReleaseFlowReader(_target, _reader);
        }
        if (_target != nullptr)
        {
            mxlDestroyInstance(_target);
        }
        if (_writer != nullptr)
        {
            mxlReleaseFlowWriter(_source, _writer);
        }
        if (_source != nullptr)
        {
            mxlDestroyInstance(_source);
        }
    }

    bool AudioLoop::prime()
    {
        _written = 1;
        return writePatternSamples(_writer, _firstHead, _batch, _seed);
    }

    bool AudioLoop::attachTarget(std::string const& targetDomain)
    {
        _target = mxlCreateInstance(targetDomain.c_str(), nullptr);
        if (_target == nullptr)
        {
            return false;
        }
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{5};
        while (mxlCreateFlowReader(_target, _flowId.c_str(), nullptr, &_reader) != MXL_STATUS_OK)
        {
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{20});
        }
        return true;
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
                if (!writePatternSamples(_writer, _firstHead + _written * _batch, _batch, _seed))
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
                 checked < batches && mxlFlowReaderGetRuntimeInfo(_reader, &runtime) == MXL_STATUS_OK && runtime.headIndex >= head;
                 head = _firstHead + checked * _batch)
            {
                result.samples += checkSampleRange(_reader, head, _batch, _channels, _seed);
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
