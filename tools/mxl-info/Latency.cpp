#include "Latency.hpp"

#include <fmt/format.h>

namespace mxl::tools::info
{
    std::optional<Latency> headLatency(mxlRational const& rate, std::uint64_t headIndex, std::uint64_t nowIndex)
    {
        if (headIndex == 0 || rate.numerator <= 0 || rate.denominator <= 0 || nowIndex == MXL_UNDEFINED_INDEX)
        {
            return std::nullopt;
        }
        auto const units = static_cast<std::int64_t>(nowIndex - headIndex);
        auto const milliseconds =
            static_cast<double>(units) * 1000.0 * static_cast<double>(rate.denominator) / static_cast<double>(rate.numerator);
        return Latency{units, milliseconds};
    }

    std::string formatLatency(std::optional<Latency> const& latency, bool continuous)
    {
        if (!latency)
        {
            return "none (nothing written yet)";
        }
        auto const* unit = continuous ? "sample" : "grain";
        auto const plural = latency->units == 1 || latency->units == -1 ? "" : "s";
        auto const ahead = latency->units < 0 ? ", head ahead of the clock" : "";
        return fmt::format("{} {}{} ({:.3f} ms{})", latency->units, unit, plural, latency->milliseconds, ahead);
    }
}
