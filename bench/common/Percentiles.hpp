// Order statistics of latency samples, in microseconds.
#pragma once

#include <cstdint>
#include <vector>

namespace mxl::bench
{
    struct Percentiles
    {
        double medianUs = 0;
        double p99Us = 0;
        std::size_t samples = 0;
    };

    Percentiles percentiles(std::vector<std::uint64_t> samplesNs);
}
