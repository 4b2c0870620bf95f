#include "TaiText.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

namespace mxl::nmos
{
    namespace
    {
        constexpr std::uint64_t nsPerSecond = 1'000'000'000ULL;

        bool allDigits(std::string_view text)
        {
            return !text.empty() && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; });
        }

        std::optional<std::uint64_t> digits(std::string_view text)
        {
            std::uint64_t value = 0;
            auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc{} || end != text.data() + text.size())
            {
                return std::nullopt;
            }
            return value;
        }
    }

    std::string taiText(std::uint64_t taiNs)
    {
        return fmt::format("{}:{}", taiNs / nsPerSecond, taiNs % nsPerSecond);
    }

    std::optional<std::uint64_t> parseTaiText(std::string const& text)
    {
        auto const colon = text.find(':');
        if (colon == std::string::npos)
        {
            return std::nullopt;
        }
        auto const seconds = digits(std::string_view{text}.substr(0, colon));
        auto const nanoseconds = digits(std::string_view{text}.substr(colon + 1));
        if (!seconds || !nanoseconds || *nanoseconds >= nsPerSecond ||
            *seconds > (std::numeric_limits<std::uint64_t>::max() - *nanoseconds) / nsPerSecond)
        {
            return std::nullopt;
        }
        return *seconds * nsPerSecond + *nanoseconds;
    }

    bool hasTaiForm(std::string const& text)
    {
        auto const colon = text.find(':');
        if (colon == std::string::npos)
        {
            return false;
        }
        auto const nanoseconds = digits(std::string_view{text}.substr(colon + 1));
        return allDigits(std::string_view{text}.substr(0, colon)) && nanoseconds && *nanoseconds < nsPerSecond;
    }
}
