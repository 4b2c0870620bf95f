#include "FlowFormatting.hpp"

#include <mxl/dataformat.h>

#include <fmt/format.h>

#include <ctime>

namespace mxl::tools::info
{
    std::string formatRate(mxlRational const& rate)
    {
        if (rate.denominator == 0)
        {
            return fmt::format("{}/{} (invalid)", rate.numerator, rate.denominator);
        }
        return fmt::format("{}/{} ({:g} Hz)", rate.numerator, rate.denominator,
                           static_cast<double>(rate.numerator) / static_cast<double>(rate.denominator));
    }

    std::string formatDataFormat(std::uint32_t format)
    {
        switch (format)
        {
        case MXL_DATA_FORMAT_VIDEO:
            return "video";
        case MXL_DATA_FORMAT_AUDIO:
            return "audio";
        case MXL_DATA_FORMAT_DATA:
            return "data";
        default:
            return fmt::format("unspecified ({})", format);
        }
    }

    std::string formatTaiTime(std::uint64_t timestampNs, std::uint64_t nowNs)
    {
        if (timestampNs == 0)
        {
            return "never";
        }
        // TAI and the Unix epoch share 1970-01-01T00:00:00; the calendar arithmetic of gmtime applies unchanged.
        auto const seconds = static_cast<std::time_t>(timestampNs / 1'000'000'000);
        std::tm calendar{};
        ::gmtime_r(&seconds, &calendar);
        char date[32];
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &calendar);
        auto const age = static_cast<double>(static_cast<std::int64_t>(nowNs - timestampNs)) / 1e9;
        return fmt::format("{}.{:09} TAI ({:.3f} s {})", date, timestampNs % 1'000'000'000, age < 0 ? -age : age,
                           age < 0 ? "ahead" : "ago");
    }
}
