#include "Percentiles.hpp"

#include <algorithm>

namespace mxl::bench
{
    Percentiles percentiles(std::vector<std::uint64_t> samplesNs)
    {
        if (samplesNs.empty())
        {
            return {};
        }
        std::sort(samplesNs.begin(), samplesNs.end());
        auto const at = [&](double fraction)
        {
            auto const rank = static_cast<std::size_t>(fraction * static_cast<double>(samplesNs.size() - 1) + 0.5);
            return static_cast<double>(samplesNs[rank]) / 1000.0;
        };
        return {at(0.5), at(0.99), samplesNs.size()};
    }
}
