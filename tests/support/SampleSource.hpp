// An audio source in the test process: a thread writes pattern batches (SamplePattern) into a flow as the TAI clock
// reaches each batch's last sample, in batches of the flow's commit hint, as a live source does; a thread held up
// catches up at once. The counterpart of PatternSource for continuous flows.
#pragma once

#include "SourceFlow.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stop_token>
#include <string>
#include <thread>

namespace mxl::test
{
    class SampleSource : public SourceFlow
    {
    public:
        // Creates the flow of `definition` in `domain` and starts writing at the present; throws what client::FlowWriter
        // throws when the flow cannot be made.
        SampleSource(std::string const& domain, std::filesystem::path const& definition, std::uint32_t seed);

        [[nodiscard]] std::size_t batchSamples() const noexcept
        {
            return _batch;
        }

        // Batches the flow refused to open or commit (0 unless the flow library broke).
        [[nodiscard]] std::uint64_t refused() const noexcept
        {
            return _refused.load();
        }

    private:
        std::uint32_t _seed;
        std::size_t _batch = 0;
        std::atomic<std::uint64_t> _refused{0};
        std::jthread _thread;

        void writeLoop(std::stop_token const& stop);
    };
}
