#include "FlowId.hpp"

#include "ClientError.hpp"

#include <fmt/format.h>

#include <cctype>

namespace mxl::client
{
    std::optional<std::string> canonicalFlowId(std::string_view text)
    {
        constexpr std::size_t canonicalLength = 36;
        if (text.size() != canonicalLength)
        {
            return std::nullopt;
        }
        std::string lower;
        lower.reserve(canonicalLength);
        for (std::size_t i = 0; i < text.size(); ++i)
        {
            auto const c = static_cast<unsigned char>(text[i]);
            bool const hyphenPosition = i == 8 || i == 13 || i == 18 || i == 23;
            if (hyphenPosition ? c != '-' : std::isxdigit(c) == 0)
            {
                return std::nullopt;
            }
            lower.push_back(static_cast<char>(std::tolower(c)));
        }
        return lower;
    }

    std::string requireFlowId(std::string_view text)
    {
        if (auto id = canonicalFlowId(text))
        {
            return *id;
        }
        throw ClientError{
            ErrorKind::Usage,
            fmt::format("flow id '{}' is not a UUID (expected 8-4-4-4-12 hexadecimal digits, e.g. 5fbec3b1-1b0f-417d-9059-8b94a47197ed)",
                        text)};
    }

    std::string flowIdOf(mxlFlowConfigInfo const& config)
    {
        auto const& id = config.common.id;
        std::string text;
        for (std::size_t i = 0; i < sizeof id; ++i)
        {
            text += fmt::format("{}{:02x}", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", id[i]);
        }
        return text;
    }
}
