// Rates of a run of grains, on the steady clock both the single-process rows and the fabric rows read.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxl::bench::device
{
    struct Throughput
    {
        double grainsPerSecond = 0;
        double gigabytesPerSecond = 0;
        double microsecondsPerGrain = 0;
    };

    // `grains` of `grainBytes` payload bytes each in `seconds`; all zero when either count is zero.
    Throughput throughput(std::size_t grainBytes, std::uint64_t grains, double seconds);

    // std::chrono::steady_clock in nanoseconds.
    std::uint64_t steadyNowNs();
}
