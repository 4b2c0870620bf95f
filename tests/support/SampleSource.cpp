#include "SampleSource.hpp"

#include "SamplePattern.hpp"

#include <mxl/time.h>

#include <algorithm>

namespace mxl::test
{
    SampleSource::SampleSource(std::string const& domain, std::filesystem::path const& definition, std::uint32_t seed)
        : SourceFlow{domain, definition, {}}
        , _seed{seed}
    {
        _batch = std::max<std::uint32_t>(_writer.config().common.maxCommitBatchSizeHint, 1);
        _thread = std::jthread{[this](std::stop_token const& stop) { writeLoop(stop); }};
    }

    void SampleSource::writeLoop(std::stop_token const& stop)
    {
        auto const rate = _writer.config().common.grainRate;
        // Batch-aligned heads, like a source committing in batches of its hint.
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
}
