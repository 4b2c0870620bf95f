#include "flow/FlowDefinition.hpp"

namespace mxl
{
    namespace
    {
        int hexValue(char c) noexcept
        {
            if (c >= '0' && c <= '9')
            {
                return c - '0';
            }
            if (c >= 'a' && c <= 'f')
            {
                return c - 'a' + 10;
            }
            if (c >= 'A' && c <= 'F')
            {
                return c - 'A' + 10;
            }
            return -1;
        }
    }

    // The SDK (stduuid) skips hyphens wherever they are and accepts one pair of braces around the digits; other
    // MXL processes may hand us ids spelled that way, so we accept the same set.
    std::optional<std::array<std::uint8_t, 16>> parseUuid(std::string_view text)
    {
        if (text.size() >= 2 && text.front() == '{' && text.back() == '}')
        {
            text = text.substr(1, text.size() - 2);
        }
        std::array<std::uint8_t, 16> bytes{};
        std::size_t digits = 0;
        for (char const c : text)
        {
            if (c == '-')
            {
                continue;
            }
            auto const value = hexValue(c);
            if (value < 0 || digits == 32)
            {
                return std::nullopt;
            }
            auto& byte = bytes[digits / 2];
            byte = static_cast<std::uint8_t>(digits % 2 == 0 ? value << 4 : byte | value);
            ++digits;
        }
        if (digits != 32)
        {
            return std::nullopt;
        }
        return bytes;
    }

    std::string formatUuid(std::array<std::uint8_t, 16> const& bytes)
    {
        static constexpr char digits[] = "0123456789abcdef";
        std::string text;
        text.reserve(36);
        for (std::size_t i = 0; i < bytes.size(); ++i)
        {
            if (i == 4 || i == 6 || i == 8 || i == 10)
            {
                text.push_back('-');
            }
            text.push_back(digits[bytes[i] >> 4]);
            text.push_back(digits[bytes[i] & 0x0f]);
        }
        return text;
    }

    std::optional<std::string> canonicalUuid(std::string_view text)
    {
        auto const bytes = parseUuid(text);
        if (!bytes)
        {
            return std::nullopt;
        }
        return formatUuid(*bytes);
    }
}
