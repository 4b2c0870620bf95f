#include "AudioTestFlow.hpp"

#include "SamplePattern.hpp"
#include "TempDomain.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace mxl::test
{
    namespace
    {
        // At most this many samples are compared per read: well under half of any ring the tests make.
        constexpr std::uint64_t maxCheckSamples = 2400;
    }

    SamplePatternWriter::SamplePatternWriter(std::filesystem::path const& domain, std::filesystem::path const& definition,
                                             std::uint32_t seed)
        : _instance{::mxlCreateInstance(domain.c_str(), nullptr)}
        , _seed{seed}
    {
        auto const text = readFile(definition);
        if (_instance == nullptr || ::mxlCreateFlowWriter(_instance, text.c_str(), nullptr, &_writer, &_config, nullptr) != MXL_STATUS_OK)
        {
            if (_instance != nullptr)
            {
                ::mxlDestroyInstance(_instance);
            }
            throw std::runtime_error{fmt::format("cannot write flow {} in {}", definition.string(), domain.string())};
        }
        _batch = std::max<std::uint32_t>(_config.common.maxCommitBatchSizeHint, 1);
        _thread = std::thread{[this] { writeLoop(); }};
    }

    SamplePatternWriter::~SamplePatternWriter()
    {
        _stop = true;
        _thread.join();
        ::mxlReleaseFlowWriter(_instance, _writer);
        ::mxlDestroyInstance(_instance);
    }

    void SamplePatternWriter::writeLoop()
    {
        auto const rate = _config.common.grainRate;
        // Batch-aligned heads, like a source committing in batches of its hint; each batch at its last sample's time.
        auto head = ::mxlGetCurrentIndex(&rate) / _batch * _batch + _batch - 1;
        while (!_stop)
        {
            ::mxlSleepUntil(::mxlIndexToTimestamp(&rate, head));
            if (!writePatternSamples(_writer, head, _batch, _seed))
            {
                ++_refused;
            }
            head += _batch;
        }
    }

    SampleVerifier::SampleVerifier(std::filesystem::path const& domain, std::string const& flowId, std::uint32_t seed)
        : _instance{::mxlCreateInstance(domain.c_str(), nullptr)}
        , _seed{seed}
    {
        for (int attempt = 0; attempt < 100; ++attempt)
        {
            if (_instance != nullptr && ::mxlCreateFlowReader(_instance, flowId.c_str(), nullptr, &_reader) == MXL_STATUS_OK)
            {
                mxlFlowRuntimeInfo runtime{};
                ::mxlFlowReaderGetConfigInfo(_reader, &_config);
                ::mxlFlowReaderGetRuntimeInfo(_reader, &runtime);
                _staleHead = runtime.headIndex;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{50});
        }
        if (_instance != nullptr)
        {
            ::mxlDestroyInstance(_instance);
        }
        throw std::runtime_error{fmt::format("flow {} did not appear in {}", flowId, domain.string())};
    }

    SampleVerifier::~SampleVerifier()
    {
        ::mxlReleaseFlowReader(_instance, _reader);
        ::mxlDestroyInstance(_instance);
    }

    SampleVerification SampleVerifier::check(std::uint64_t wanted, std::chrono::milliseconds timeout)
    {
        SampleVerification result;
        auto const batch = std::uint64_t{std::max<std::uint32_t>(_config.common.maxCommitBatchSizeHint, 1)};
        auto const channels = std::uint64_t{std::max<std::uint32_t>(_config.continuous.channelCount, 1)};
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (result.verified < wanted && std::chrono::steady_clock::now() < deadline)
        {
            mxlFlowRuntimeInfo runtime{};
            ::mxlFlowReaderGetRuntimeInfo(_reader, &runtime);
            if (_next == 0 && runtime.headIndex != _staleHead && runtime.headIndex != 0)
            {
                // The first batch that arrived after the verifier was made.
                _next = runtime.headIndex + 1 - batch;
            }
            if (_next == 0 || runtime.headIndex < _next)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{2});
                continue;
            }
            auto const last = std::min(runtime.headIndex, _next + maxCheckSamples - 1);
            auto const count = last + 1 - _next;
            auto const mismatches = patternMismatches(_reader, last, count, _seed);
            if (!mismatches)
            {
                // The ring moved past the range: start again at the newest batch.
                auto const resume = std::max(runtime.headIndex + 1 - batch, last + 1);
                result.gone += resume - _next;
                _next = resume;
                continue;
            }
            result.wordsMismatched += *mismatches;
            // A missing sample differs in every channel, a corrupt one in at least one.
            auto const bad = std::min<std::uint64_t>((*mismatches + channels - 1) / channels, count);
            result.mismatched += bad;
            result.verified += count - bad;
            result.lastIndex = last;
            _next = last + 1;
        }
        return result;
    }
}
