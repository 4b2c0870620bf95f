#include "LiveAudioSource.hpp"

#include "SamplePattern.hpp"

#include <mxl/time.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>

namespace mxl::test
{
    LiveAudioSource::LiveAudioSource(std::string const& domain, std::string const& definition, std::uint32_t seed)
        : _flowId{nlohmann::json::parse(definition).at("id").get<std::string>()}
        , _seed{seed}
        , _instance{mxlCreateInstance(domain.c_str(), nullptr)}
    {
        if (_instance == nullptr ||
            mxlCreateFlowWriter(_instance, definition.c_str(), nullptr, &_writer, &_config, nullptr) != MXL_STATUS_OK)
        {
            if (_instance != nullptr)
            {
                mxlDestroyInstance(_instance);
            }
            throw std::runtime_error{"cannot create the live audio source flow in " + domain};
        }
        _thread = std::jthread{[this](std::stop_token const& stop) { write(stop); }};
    }

    LiveAudioSource::~LiveAudioSource()
    {
        _thread.request_stop();
        _thread.join();
        mxlReleaseFlowWriter(_instance, _writer);
        mxlDestroyInstance(_instance);
    }

    void LiveAudioSource::write(std::stop_token const& stop)
    {
        auto const batch = std::uint64_t{_config.common.maxCommitBatchSizeHint};
        auto const rate = _config.common.grainRate;
        // Batch-aligned, like a source committing in batches of its hint.
        auto head = mxlGetCurrentIndex(&rate) / batch * batch;
        while (!stop.stop_requested())
        {
            // Every batch whose last sample the clock has reached; a thread held up catches up at once.
            while (!stop.stop_requested() && head + batch <= mxlGetCurrentIndex(&rate))
            {
                head += batch;
                if (!writePatternSamples(_writer, head, batch, _seed))
                {
                    ++_refused;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{1});
        }
    }
}
