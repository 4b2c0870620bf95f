#include "Throughput.hpp"

#include <chrono>

namespace mxl::bench::device
{
    Throughput throughput(std::size_t grainBytes, std::uint64_t grains, double seconds)
    {
        if (grains == 0 || seconds <= 0)
        {
            return {};
        }
        auto const count = static_cast<double>(grains);
        return {count / seconds, static_cast<double>(grainBytes) * count / seconds / 1e9, seconds * 1e6 / count};
    }

    std::uint64_t steadyNowNs()
    {
        return static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
    }
}
