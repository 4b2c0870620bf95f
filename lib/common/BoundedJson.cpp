#include "BoundedJson.hpp"

#include <fmt/format.h>

namespace mxl
{
    namespace
    {
        struct TooDeep
        {
        };

        // nlohmann's message without its "[json.exception.parse_error.101] " prefix, which means nothing to users.
        std::string withoutPrefix(std::string_view text)
        {
            if (auto const end = text.find("] "); !text.empty() && text.front() == '[' && end != std::string_view::npos)
            {
                text.remove_prefix(end + 2);
            }
            return std::string{text};
        }
    }

    JsonParse parseBoundedJson(std::string_view text, JsonLimits limits)
    {
        if (text.size() > limits.maxBytes)
        {
            return {{}, fmt::format("the document is {} bytes, more than the {} accepted", text.size(), limits.maxBytes)};
        }
        // JSON text holds no raw NUL; nlohmann's lexer would take one for the end of the input and ignore what follows.
        if (auto const nul = text.find('\0'); nul != std::string_view::npos)
        {
            return {{}, fmt::format("syntax error: a NUL byte at byte {}", nul + 1)};
        }
        // The callback's depth counts the containers around the event: a container opening at depth maxDepth would be
        // level maxDepth + 1; a value or key at depth maxDepth sits in level maxDepth.
        auto const depthCheck = [&limits](int depth, nlohmann::json::parse_event_t event, nlohmann::json&)
        {
            bool const opens = event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start;
            if (depth > limits.maxDepth || (opens && depth == limits.maxDepth))
            {
                throw TooDeep{};
            }
            return true;
        };
        try
        {
            return {nlohmann::json::parse(text.begin(), text.end(), depthCheck), {}};
        }
        catch (TooDeep const&)
        {
            return {{}, fmt::format("the document nests deeper than {} levels", limits.maxDepth)};
        }
        // json::exception, not only parse_error: a number too large for a double (8e424) is an out_of_range.
        catch (nlohmann::json::exception const& error)
        {
            return {{}, withoutPrefix(error.what())};
        }
    }

    nlohmann::json parseJsonOrDiscarded(std::string_view text, JsonLimits limits)
    {
        auto parsed = parseBoundedJson(text, limits);
        // Parentheses: braces would make an array holding the discarded value.
        return parsed.ok() ? std::move(parsed.value) : nlohmann::json(nlohmann::json::value_t::discarded);
    }

    std::string dumpJson(nlohmann::json const& value)
    {
        return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }

    std::string quoteJson(nlohmann::json const& value, std::size_t maxChars)
    {
        auto text = dumpJson(value);
        if (text.size() > maxChars)
        {
            text.resize(maxChars);
            text += "...";
        }
        return text;
    }
}
