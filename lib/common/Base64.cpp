#include "common/Base64.hpp"

#include <cstdint>

#include <array>

namespace mxl
{
    namespace
    {
        constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

        constexpr std::array<std::int8_t, 256> decodingTable()
        {
            std::array<std::int8_t, 256> table{};
            table.fill(-1);
            for (std::size_t i = 0; i < alphabet.size(); ++i)
            {
                table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
            }
            return table;
        }

        constexpr auto sextets = decodingTable();
    }

    std::string encodeBase64(std::string_view bytes)
    {
        std::string text;
        text.reserve((bytes.size() + 2) / 3 * 4);
        for (std::size_t i = 0; i < bytes.size(); i += 3)
        {
            auto const remaining = bytes.size() - i;
            std::uint32_t group = std::uint32_t{static_cast<unsigned char>(bytes[i])} << 16;
            if (remaining > 1)
            {
                group |= std::uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8;
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

    std::optional<std::string> decodeBase64(std::string_view text)
    {
        if (text.size() % 4 != 0)
        {
            return std::nullopt;
        }
        std::size_t padding = 0;
        while (padding < text.size() && text[text.size() - 1 - padding] == '=')
        {
            ++padding;
        }
        if (padding > 2)
        {
            return std::nullopt;
        }

        std::string bytes;
        bytes.reserve(text.size() / 4 * 3);
        std::uint32_t group = 0;
        auto const dataLength = text.size() - padding;
        for (std::size_t i = 0; i < text.size(); ++i)
        {
            std::uint32_t value = 0;
            if (i < dataLength)
            {
                auto const sextet = sextets[static_cast<unsigned char>(text[i])];
                if (sextet < 0)
                {
                    return std::nullopt;
                }
                value = static_cast<std::uint32_t>(sextet);
            }
            group = (group << 6) | value;
            if (i % 4 == 3)
            {
                bytes += static_cast<char>(group >> 16);
                bytes += static_cast<char>(group >> 8);
                bytes += static_cast<char>(group);
                group = 0;
            }
        }
        bytes.resize(bytes.size() - padding);
        return bytes;
    }

    std::string encodeBase64Url(std::string_view bytes)
    {
        auto text = encodeBase64(bytes);
        while (!text.empty() && text.back() == '=')
        {
            text.pop_back();
        }
        for (auto& c : text)
        {
            c = c == '+' ? '-' : c == '/' ? '_' : c;
        }
        return text;
    }

    std::optional<std::string> decodeBase64Url(std::string_view text)
    {
        if (text.size() % 4 == 1)
        {
            return std::nullopt;
        }
        std::string standard;
        standard.reserve(text.size() + 3);
        for (auto const c : text)
        {
            if (c == '+' || c == '/' || c == '=')
            {
                return std::nullopt;
            }
            standard += c == '-' ? '+' : c == '_' ? '/' : c;
        }
        standard.append((4 - standard.size() % 4) % 4, '=');
        return decodeBase64(standard);
    }
}
