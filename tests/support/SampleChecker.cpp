#include "SampleChecker.hpp"

#include "FlowWait.hpp"
#include "SamplePattern.hpp"

#include <algorithm>
#include <limits>
#include <thread>

namespace mxl::test
{
    namespace
    {
        // At most this many samples are compared per read: well under half of any ring the tests make.
        constexpr std::uint64_t maxCheckSamples = 2400;
        constexpr auto pollInterval = std::chrono::milliseconds{2};
    }

    SampleCounts& SampleCounts::operator+=(SampleCounts const& other) noexcept
    {
        verified += other.verified;
        mismatched += other.mismatched;
        wordsMismatched += other.wordsMismatched;
        gone += other.gone;
        return *this;
    }

    SampleCounts checkSampleRange(mxlFlowReader reader, std::uint64_t headIndex, std::uint64_t count, std::uint64_t channels,
                                  std::uint32_t seed)
    {
        auto const mismatches = patternMismatches(reader, headIndex, count, seed);
        if (!mismatches)
        {
            return SampleCounts{.gone = count};
        }
        // A missing sample differs in every channel, a corrupt one in at least one.
        auto const bad = std::min<std::uint64_t>((*mismatches + channels - 1) / channels, count);
        return SampleCounts{.verified = count - bad, .mismatched = bad, .wordsMismatched = *mismatches};
    }

    SampleChecker::SampleChecker(std::string const& domain, std::string const& flowId, std::uint32_t seed)
        : _instance{domain}
        , _reader{readerWhenThere(_instance, flowId)}
        , _seed{seed}
    {
        ::mxlFlowReaderGetConfigInfo(_reader.get(), &_config);
        _staleHead = head();
    }

    std::uint64_t SampleChecker::head() const
    {
        mxlFlowRuntimeInfo runtime{};
        ::mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime);
        return runtime.headIndex;
    }

    bool SampleChecker::started(std::uint64_t head)
    {
        if (_next == 0 && head != _staleHead && head != 0)
        {
            auto const batch = std::uint64_t{std::max<std::uint32_t>(_config.common.maxCommitBatchSizeHint, 1)};
            _first = _next = head + 1 - batch;
        }
        return _next != 0;
    }

    bool SampleChecker::waitForFirstBatch(std::chrono::steady_clock::duration timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (!started(head()))
        {
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return false;
            }
            std::this_thread::sleep_for(pollInterval);
        }
        return true;
    }

    SampleCounts SampleChecker::check(std::uint64_t wanted, std::chrono::steady_clock::duration timeout)
    {
        SampleCounts result;
        auto const batch = std::uint64_t{std::max<std::uint32_t>(_config.common.maxCommitBatchSizeHint, 1)};
        auto const channels = std::uint64_t{std::max<std::uint32_t>(_config.continuous.channelCount, 1)};
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (result.verified < wanted && std::chrono::steady_clock::now() < deadline)
        {
            auto const newest = head();
            if (!started(newest) || newest < _next)
            {
                std::this_thread::sleep_for(pollInterval);
                continue;
            }
            auto const last = std::min(newest, _next + maxCheckSamples - 1);
            auto const count = last + 1 - _next;
            auto range = checkSampleRange(_reader.get(), last, count, channels, _seed);
            if (range.gone != 0)
            {
                // The ring moved past the range: start again at the newest batch.
                auto const resume = std::max(newest + 1 - batch, last + 1);
                range.gone = resume - _next;
                _next = resume;
            }
            else
            {
                _next = last + 1;
            }
            result += range;
        }
        _totals += result;
        return result;
    }

    SampleCounts SampleChecker::checkFor(std::chrono::steady_clock::duration duration)
    {
        return check(std::numeric_limits<std::uint64_t>::max(), duration);
    }
}
