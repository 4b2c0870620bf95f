#include "AudioTestFlow.hpp"

#include "FlowWait.hpp"
#include "SamplePattern.hpp"
#include "TempDomain.hpp"
#include "TestFlow.hpp"

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
        : _instance{domain}
        , _writer{_instance, readFile(definition), {}, definition.string()}
        , _seed{seed}
    {
        _batch = std::max<std::uint32_t>(_writer.config().common.maxCommitBatchSizeHint, 1);
        _thread = std::jthread{[this](std::stop_token const& stop) { writeLoop(stop); }};
    }

    void SamplePatternWriter::writeLoop(std::stop_token const& stop)
    {
        auto const rate = _writer.config().common.grainRate;
        // Batch-aligned heads, like a source committing in batches of its hint; each batch at its last sample's time.
        auto head = ::mxlGetCurrentIndex(&rate) / _batch * _batch + _batch - 1;
        while (!stop.stop_requested())
        {
            ::mxlSleepUntil(::mxlIndexToTimestamp(&rate, head));
            if (!writePatternSamples(_writer.get(), head, _batch, _seed))
            {
                ++_refused;
            }
            head += _batch;
        }
    }

    SampleVerifier::SampleVerifier(std::filesystem::path const& domain, std::string const& flowId, std::uint32_t seed)
        : _instance{domain}
        , _reader{readerWhenThere(_instance, flowId)}
        , _seed{seed}
    {
        mxlFlowRuntimeInfo runtime{};
        ::mxlFlowReaderGetConfigInfo(_reader.get(), &_config);
        ::mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime);
        _staleHead = runtime.headIndex;
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
            ::mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime);
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
            auto const mismatches = patternMismatches(_reader.get(), last, count, _seed);
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
