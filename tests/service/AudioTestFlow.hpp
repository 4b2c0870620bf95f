// Both ends of a moved audio flow, seen from the test: SamplePatternWriter writes batches of the flow's commit hint in
// real time (paced on the TAI clock), every word a function of (seed, channel, sample index) (tests/fabrics-audio's
// SamplePattern); SampleVerifier reads the target's copy and compares every sample it covers with that pattern. A
// sample the target never received still holds whatever the ring held before, so silent loss shows as mismatches.
#pragma once

#include <client/MxlHandles.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stop_token>
#include <string>
#include <thread>

namespace mxl::test
{
    class SamplePatternWriter
    {
    public:
        SamplePatternWriter(std::filesystem::path const& domain, std::filesystem::path const& definition, std::uint32_t seed);

        SamplePatternWriter(SamplePatternWriter const&) = delete;
        SamplePatternWriter& operator=(SamplePatternWriter const&) = delete;

        [[nodiscard]] std::size_t batchSamples() const noexcept
        {
            return _batch;
        }

        // Batches the flow refused to open or commit (0 unless the flow library broke).
        [[nodiscard]] std::uint64_t refused() const noexcept
        {
            return _refused;
        }

    private:
        client::Instance _instance;
        client::FlowWriter _writer;
        std::uint32_t _seed;
        std::size_t _batch = 0;
        std::atomic<std::uint64_t> _refused{0};
        std::jthread _thread;

        void writeLoop(std::stop_token const& stop);
    };

    struct SampleVerification
    {
        // Samples (per channel) whose every channel matched the pattern.
        std::uint64_t verified = 0;
        // Samples of a checked range that did not match: lost on the way (nothing written there) or corrupt.
        std::uint64_t mismatched = 0;
        std::uint64_t wordsMismatched = 0;
        // Samples the target's ring had already overwritten when the checker came to them (the checker's own overrun,
        // counted apart: nothing says they did not arrive).
        std::uint64_t gone = 0;
        // The newest sample index checked.
        std::uint64_t lastIndex = 0;
    };

    class SampleVerifier
    {
    public:
        // Waits up to 5 s for the flow to exist in `domain`; throws std::runtime_error. Checking starts with the first
        // batch committed after this: what the flow held before (an earlier incarnation's samples) is not looked at.
        SampleVerifier(std::filesystem::path const& domain, std::string const& flowId, std::uint32_t seed);

        // Checks every sample as it is committed, until `wanted` more are verified or `timeout` passes. Successive
        // calls continue after the last sample looked at, so that nothing in between escapes the check.
        SampleVerification check(std::uint64_t wanted, std::chrono::milliseconds timeout);

    private:
        client::Instance _instance;
        client::FlowReader _reader;
        mxlFlowConfigInfo _config{};
        std::uint32_t _seed;
        // The head when the verifier was made, and the next sample to check (0: not started).
        std::uint64_t _staleHead = 0;
        std::uint64_t _next = 0;
    };
}
