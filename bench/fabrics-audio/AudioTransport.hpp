// libmxl-fabrics moving audio batches, behind the transport interface of bench/fabrics (Transport.hpp), so that its
// runner (two forked processes, CPU accounting, latency) measures them exactly as it measures grains and raw writes.
// "Grain" i is the batch of `batchSamples` samples per channel ending at base + (i + 1) × batchSamples.
#pragma once

#include "Transport.hpp"

#include <cstdint>

namespace mxl::bench
{
    struct AudioShape
    {
        std::uint32_t channels;
        std::uint32_t batchSamples;

        // What one batch puts on the wire: the 16-byte entry header and the samples (float32) of every channel.
        [[nodiscard]] std::size_t entryBytes() const noexcept
        {
            return 16 + std::size_t{channels} * batchSamples * 4;
        }
    };

    // The domain of TransportConfig needs an options.json whose history holds more than `depth` batches.
    std::unique_ptr<TargetTransport> makeMxlAudioTarget(TransportConfig const& config, AudioShape const& shape);
    std::unique_ptr<InitiatorTransport> makeMxlAudioInitiator(TransportConfig const& config, AudioShape const& shape,
                                                              std::vector<char> const& ticket);
}
