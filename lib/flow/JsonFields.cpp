#include "flow/JsonFields.hpp"

#include <cmath>

namespace mxl
{
    std::optional<std::int64_t> jsonIntegerIn(nlohmann::json const& value, std::int64_t min, std::int64_t max)
    {
        if (value.is_number_unsigned())
        {
            auto const number = value.get<std::uint64_t>();
            if (max < 0 || number > static_cast<std::uint64_t>(max))
            {
                return std::nullopt;
            }
            return static_cast<std::int64_t>(number) < min ? std::nullopt : std::optional{static_cast<std::int64_t>(number)};
        }
        if (value.is_number_integer())
        {
            auto const number = value.get<std::int64_t>();
            return number < min || number > max ? std::nullopt : std::optional{number};
        }
        if (value.is_number_float())
        {
            // 2^63 is the first double that no int64 can hold; the comparisons are false for NaN.
            auto const number = value.get<double>();
            if (!(number >= -0x1p63 && number < 0x1p63) || std::trunc(number) != number)
            {
                return std::nullopt;
            }
            auto const integer = static_cast<std::int64_t>(number);
            return integer < min || integer > max ? std::nullopt : std::optional{integer};
        }
        return std::nullopt;
    }
}
