// An audio source and the check at the far end, in one loop of the test process. The source writes pattern batches into
// a flow of its domain starting minutes in the past, so that an initiator pacing by the TAI clock sends them as fast as
// they come; the check reads every sample back from the target's flow. The source stays at most `lead` batches ahead of
// the check, so the test itself never overruns either ring, and minutes of audio move in seconds.
#pragma once

#include "SampleChecker.hpp"

#include <client/MxlHandles.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace mxl::test
{
    struct AudioRunResult
    {
        // In samples; a lost batch shows as mismatched, as the target ring holds something else there.
        SampleCounts samples;
        double seconds = 0.0;
    };

    class AudioLoop
    {
    public:
        // Creates the source flow from `definition` (NMOS JSON text) with writer options `writerOptions` (JSON, may be empty).
        AudioLoop(std::string const& sourceDomain, std::string const& definition, std::string const& writerOptions, std::uint32_t seed);

        AudioLoop(AudioLoop const&) = delete;
        AudioLoop& operator=(AudioLoop const&) = delete;

        [[nodiscard]] std::string const& flowId() const noexcept
        {
            return _flowId;
        }

        [[nodiscard]] std::size_t batchSamples() const noexcept
        {
            return _batch;
        }

        [[nodiscard]] std::uint64_t channels() const noexcept
        {
            return _channels;
        }

        // Writes the first batch (an initiator starts from the source's newest sample); false if the writer refused.
        bool prime();

        // Opens a reader on the same flow in the target's domain, waiting up to 5 s for the target to create it; throws
        // std::runtime_error when it does not.
        void attachTarget(std::string const& targetDomain);

        // Writes up to `batches` batches (the primed one included) and checks each at the target, until all are checked or
        // `timeout` passes. The second batch is written once the primed one arrived; `lead` = 0 then writes all the others
        // at once (a burst).
        AudioRunResult run(std::size_t batches, std::size_t lead, std::chrono::milliseconds timeout);

    private:
        std::string _flowId;
        std::uint32_t _seed;
        client::Instance _source;
        client::FlowWriter _writer;
        std::optional<client::Instance> _target;
        client::FlowReader _reader;
        std::size_t _batch = 0;
        std::uint64_t _channels = 0;
        std::uint64_t _firstHead = 0;
        std::size_t _written = 0;
    };
}
