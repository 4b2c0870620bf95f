// An audio source at real rate: a thread of the test process writes pattern batches (tests/fabrics-audio/SamplePattern)
// into a flow of its domain as the TAI clock reaches each batch's last sample, as a live source does, so that an initiator
// following it sends batches as they come and a path can be cut mid-stream.
#pragma once

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <atomic>
#include <cstdint>
#include <stop_token>
#include <string>
#include <thread>

namespace mxl::test
{
    class LiveAudioSource
    {
    public:
        // Creates the flow from `definition` (NMOS JSON text) and starts writing at the present, in batches of the flow's
        // commit hint; throws std::runtime_error when the flow cannot be created.
        LiveAudioSource(std::string const& domain, std::string const& definition, std::uint32_t seed);
        // Stops the thread, then releases the flow.
        ~LiveAudioSource();

        LiveAudioSource(LiveAudioSource const&) = delete;
        LiveAudioSource& operator=(LiveAudioSource const&) = delete;

        [[nodiscard]] std::string const& flowId() const noexcept
        {
            return _flowId;
        }

        // Batches the writer refused (none expected).
        [[nodiscard]] std::uint64_t refused() const noexcept
        {
            return _refused.load();
        }

    private:
        std::string _flowId;
        std::uint32_t _seed;
        mxlInstance _instance = nullptr;
        mxlFlowWriter _writer = nullptr;
        mxlFlowConfigInfo _config{};
        std::atomic<std::uint64_t> _refused{0};
        std::jthread _thread;

        void write(std::stop_token const& stop);
    };
}
