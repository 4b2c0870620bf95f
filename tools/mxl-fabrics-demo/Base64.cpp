#include "Base64.hpp"

#include <array>
#include <cstdint>

namespace mxl::demo
{
    namespace
    {
        constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        constexpr int notInAlphabet = -1;

        constexpr std::array<int, 256> makeDecodeTable()
        {
            std::array<int, 256> table{};
            table.fill(notInAlphabet);
            for (std::size_t i = 0; i < alphabet.size(); ++i)
            {
                table[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
            }
            return table;
        }

        constexpr auto decodeTable = makeDecodeTable();

        std::string_view trimmed(std::string_view text)
        {
            constexpr std::string_view space = " \t\r\n";
            auto const first = text.find_first_not_of(space);
            if (first == std::string_view::npos)
            {
                return {};
            }
            return text.substr(first, text.find_last_not_of(space) - first + 1);
        }
    }

    std::string base64Encode(std::string_view bytes)
    {
        std::string text;
        text.reserve((bytes.size() + 2) / 3 * 4);
        for (std::size_t i = 0; i < bytes.size(); i += 3)
        {
            auto const remaining = bytes.size() - i;
            std::uint32_t group = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
            if (remaining > 1)
            {
                group |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
            }
            if (remaining > 2)
            {
                group |= static_cast<unsigned char>(bytes[i + 2]);
            }
            text += alphabet[(group >> 18) & 0x3F];
            text += alphabet[(group >> 12) & 0x3F];
            text += remaining > 1 ? alphabet[(group >> 6) & 0x3F] : '=';
            text += remaining > 2 ? alphabet[group & 0x3F] : '=';
        }
        return text;
    }

    std::optional<std::string> base64Decode(std::string_view text)
    {
        text = trimmed(text);
        if (text.empty() || text.size() % 4 != 0)
        {
            return std::nullopt;
        }
        auto const padding = text.ends_with("==") ? 2U : text.ends_with('=') ? 1U : 0U;
        std::string bytes;
        bytes.reserve(text.size() / 4 * 3);
        for (std::size_t i = 0; i < text.size(); i += 4)
        {
            bool const lastGroup = i + 4 == text.size();
            std::uint32_t group = 0;
            for (std::size_t k = 0; k < 4; ++k)
            {
                auto const c = static_cast<unsigned char>(text[i + k]);
                bool const isPadding = lastGroup && k >= 4 - padding;
                int const value = isPadding ? 0 : decodeTable[c];
                if (value == notInAlphabet)
                {
                    return std::nullopt;
                }
                group = (group << 6) | static_cast<std::uint32_t>(value);
            }
            bytes += static_cast<char>((group >> 16) & 0xFF);
            if (!lastGroup || padding < 2)
            {
                bytes += static_cast<char>((group >> 8) & 0xFF);
            }
            if (!lastGroup || padding < 1)
            {
                bytes += static_cast<char>(group & 0xFF);
            }
        }
        return bytes;
    }
}
