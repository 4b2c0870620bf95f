#include "common/PrintableText.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mxl
{
    namespace
    {
        bool isControl(char byte) noexcept
        {
            auto const value = static_cast<unsigned char>(byte);
            return value < 0x20 || value == 0x7f;
        }
    }

    bool needsEscaping(std::string_view text, std::size_t maxChars) noexcept
    {
        return text.size() > maxChars || std::any_of(text.begin(), text.end(), isControl);
    }

    std::string printableText(std::string_view text, std::size_t maxChars)
    {
        auto const shown = text.substr(0, std::min(text.size(), maxChars));
        std::string result;
        result.reserve(shown.size() + 16);
        for (auto const byte : shown)
        {
            switch (byte)
            {
            case '\n':
                result += "\\n";
                break;
            case '\r':
                result += "\\r";
                break;
            case '\t':
                result += "\\t";
                break;
            default:
                if (isControl(byte))
                {
                    result += fmt::format("\\x{:02x}", static_cast<unsigned char>(byte));
                }
                else
                {
                    result += byte;
                }
            }
        }
        if (shown.size() < text.size())
        {
            result += fmt::format("... ({} bytes)", text.size());
        }
        return result;
    }
}
