#include "HttpRequestCheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace mxl
{
    namespace
    {
        bool isControl(unsigned char byte)
        {
            return byte < 0x20 || byte == 0x7f;
        }

        bool isHex(char c)
        {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        }

        unsigned hexValue(char c)
        {
            return c <= '9' ? static_cast<unsigned>(c - '0') : static_cast<unsigned>((c | 0x20) - 'a' + 10);
        }

        // RFC 9110's tchar.
        bool isTokenCharacter(char c)
        {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   std::string_view{"!#$%&'*+-.^_`|~"}.find(c) != std::string_view::npos;
        }

        bool hasControl(std::string_view text)
        {
            return std::any_of(text.begin(), text.end(), [](char c) { return c != '\t' && isControl(static_cast<unsigned char>(c)); });
        }
    }

    bool isUtf8(std::string_view text)
    {
        static constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        for (std::size_t i = 0; i < text.size();)
        {
            auto const lead = static_cast<unsigned char>(text[i]);
            std::size_t const length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
            if (length == 0 || i + length > text.size())
            {
                return false;
            }
            std::uint32_t point = length == 1 ? lead : lead & (0x7fU >> length);
            for (std::size_t k = 1; k < length; ++k)
            {
                auto const next = static_cast<unsigned char>(text[i + k]);
                if ((next & 0xc0) != 0x80)
                {
                    return false;
                }
                point = (point << 6) | (next & 0x3fU);
            }
            if (point < smallest[length] || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff))
            {
                return false;
            }
            i += length;
        }
        return true;
    }

    std::string requestTargetProblem(std::string_view target)
    {
        std::string decoded;
        for (std::size_t i = 0; i < target.size(); ++i)
        {
            auto const byte = static_cast<unsigned char>(target[i]);
            if (isControl(byte))
            {
                return fmt::format("the request target has the control byte 0x{:02x} at offset {}", byte, i);
            }
            if (target[i] != '%')
            {
                decoded += target[i];
                continue;
            }
            if (i + 2 >= target.size() || !isHex(target[i + 1]) || !isHex(target[i + 2]))
            {
                return fmt::format("the request target has a '%' at offset {} that is not followed by two hex digits", i);
            }
            auto const value = static_cast<unsigned char>(hexValue(target[i + 1]) * 16 + hexValue(target[i + 2]));
            if (isControl(value))
            {
                return fmt::format("the request target encodes the control byte 0x{:02x} (%{}) at offset {}", value,
                                   target.substr(i + 1, 2), i);
            }
            decoded += static_cast<char>(value);
            i += 2;
        }
        return isUtf8(decoded) ? std::string{} : std::string{"the request target is not UTF-8 once percent-decoded"};
    }

    std::string headerProblem(std::string_view name, std::string_view value)
    {
        if (name.find('\0') != std::string_view::npos || hasControl(name))
        {
            return "a header name has a NUL or control byte";
        }
        if (name.empty() || !std::all_of(name.begin(), name.end(), isTokenCharacter))
        {
            return fmt::format("the header name '{}' is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)", name);
        }
        if (value.find('\0') != std::string_view::npos || hasControl(value))
        {
            return fmt::format("the value of header '{}' has a NUL or control byte", name);
        }
        return {};
    }

    bool HeaderCheck::take(std::string_view name, std::string_view value)
    {
        _problem = headerProblem(name, value);
        auto const named = [&](std::string_view wanted)
        {
            return name.size() == wanted.size() &&
                   std::equal(name.begin(), name.end(), wanted.begin(),
                              [](char a, char b)
                              { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
        };
        _contentLengths += named("content-length") ? 1 : 0;
        _transferEncoding = _transferEncoding || named("transfer-encoding");
        return _problem.empty();
    }

    std::string HeaderCheck::problem() const
    {
        if (!_problem.empty())
        {
            return _problem;
        }
        if (_contentLengths > 1)
        {
            return fmt::format("the request has {} Content-Length headers: its body's length is ambiguous", _contentLengths);
        }
        if (_contentLengths == 1 && _transferEncoding)
        {
            return "the request has both Content-Length and Transfer-Encoding: its body's length is ambiguous";
        }
        return {};
    }
}
