// The far end of a moved audio flow, seen from the test: reads the target's copy and compares every sample, in order,
// with the pattern a SampleSource writes (SamplePattern). A sample the target never received still holds whatever the
// ring held before, so silent loss shows as mismatches.
#pragma once

#include <client/MxlHandles.hpp>

#include <mxl/flow.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace mxl::test
{
    // Words are compared one by one; the sample counts of a range with wrong words are reckoned from them, as if the
    // wrong words fell on as few samples as they can (a missing sample is wrong in every channel). wordsMismatched is
    // the exact measure of damage.
    struct SampleCounts
    {
        // Samples (per channel) that matched the pattern.
        std::uint64_t verified = 0;
        // Samples of a checked range that did not match: lost on the way (nothing written there) or corrupt.
        std::uint64_t mismatched = 0;
        // The words (all channels) that did not match.
        std::uint64_t wordsMismatched = 0;
        // Samples the target's ring had already overwritten when the checker came to them (the checker's own overrun,
        // counted apart: nothing says they did not arrive).
        std::uint64_t gone = 0;

        SampleCounts& operator+=(SampleCounts const& other) noexcept;
    };

    // Compares the range (headIndex, count) of a flow of `channels` channels with the pattern of `seed`: all of it gone
    // when the ring no longer holds it.
    [[nodiscard]] SampleCounts checkSampleRange(mxlFlowReader reader, std::uint64_t headIndex, std::uint64_t count, std::uint64_t channels,
                                                std::uint32_t seed);

    class SampleChecker
    {
    public:
        // Waits up to 5 s for the flow to exist in `domain`; throws std::runtime_error. Checking starts with the first
        // batch committed after this: what the flow held before (an earlier incarnation's samples) is not looked at.
        SampleChecker(std::string const& domain, std::string const& flowId, std::uint32_t seed);

        // Checks every sample as it is committed, until `wanted` more are verified or `timeout` passes, and returns what
        // this call saw. Successive calls continue after the last sample looked at, so that nothing in between escapes
        // the check.
        SampleCounts check(std::uint64_t wanted, std::chrono::steady_clock::duration timeout);

        // Checks for `duration`, however many samples that is.
        SampleCounts checkFor(std::chrono::steady_clock::duration duration);

        // False when no batch was committed within `timeout`.
        bool waitForFirstBatch(std::chrono::steady_clock::duration timeout);

        // Everything checked since the checker was made.
        [[nodiscard]] SampleCounts const& totals() const noexcept
        {
            return _totals;
        }

        // Samples from the first checked to the last: each of them is counted once in totals().
        [[nodiscard]] std::uint64_t span() const noexcept
        {
            return _first == 0 ? 0 : _next - _first;
        }

    private:
        client::Instance _instance;
        client::FlowReader _reader;
        mxlFlowConfigInfo _config{};
        std::uint32_t _seed;
        // The head when the checker was made; the first sample checked and the next one to check (0: not started).
        std::uint64_t _staleHead = 0;
        std::uint64_t _first = 0;
        std::uint64_t _next = 0;
        SampleCounts _totals;

        [[nodiscard]] std::uint64_t head() const;
        // Starts at the first batch committed after the checker was made; false while there is none.
        bool started(std::uint64_t head);
    };
}
