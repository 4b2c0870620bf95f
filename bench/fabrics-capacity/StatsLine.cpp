#include "StatsLine.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace mxl::bench::capacity
{
    namespace
    {
        // "12" or "3,0,4" summed; nullopt for anything else.
        std::optional<std::uint64_t> sumOfList(std::string_view text)
        {
            std::uint64_t sum = 0;
            while (!text.empty())
            {
                auto const comma = text.find(',');
                auto const number = text.substr(0, comma);
                std::uint64_t value = 0;
                auto const [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
                if (number.empty() || error != std::errc{} || end != number.data() + number.size())
                {
                    return std::nullopt;
                }
                sum += value;
                text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
            }
            return sum;
        }
    }

    std::optional<StatsLine> StatsLine::parse(std::string_view line, std::string_view prefix)
    {
        if (!line.starts_with(prefix))
        {
            return std::nullopt;
        }
        StatsLine stats;
        stats._line = std::string{line};
        auto rest = line.substr(prefix.size());
        while (!rest.empty())
        {
            auto const space = rest.find(' ');
            auto const token = rest.substr(0, space);
            rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
            auto const equals = token.find('=');
            if (equals == std::string_view::npos)
            {
                continue;
            }
            if (auto const value = sumOfList(token.substr(equals + 1)))
            {
                stats._counters.insert_or_assign(std::string{token.substr(0, equals)}, *value);
            }
        }
        return stats;
    }

    std::uint64_t StatsLine::at(std::string_view key) const
    {
        auto const it = _counters.find(key);
        if (it == _counters.end())
        {
            throw std::runtime_error{fmt::format("the stats line '{}' has no counter '{}='", _line, key)};
        }
        return it->second;
    }

    std::uint64_t growth(StatsLine const& start, StatsLine const& end, std::string_view key)
    {
        auto const from = start.at(key);
        auto const to = end.at(key);
        if (to < from)
        {
            throw std::runtime_error{fmt::format("counter '{}=' went down from {} to {} during the window", key, from, to)};
        }
        return to - from;
    }
}
