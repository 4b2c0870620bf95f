#include "BoundedJson.hpp"

#include <fmt/format.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace mxl
{
    namespace
    {
        struct TooDeep
        {
        };

        struct DuplicateKey
        {
            std::string key;
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
        // A key given twice in one object is refused (RFC 8259 leaves its meaning open): nlohmann would keep the last,
        // so that a definition or a request would silently mean something other than one of its readers sees.
        std::vector<std::unordered_set<std::string>> objectKeys;
        auto const check = [&limits, &objectKeys](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed)
        {
            using Event = nlohmann::json::parse_event_t;
            bool const opens = event == Event::object_start || event == Event::array_start;
            if (depth > limits.maxDepth || (opens && depth == limits.maxDepth))
            {
                throw TooDeep{};
            }
            if (event == Event::object_start)
            {
                objectKeys.emplace_back();
            }
            else if (event == Event::object_end)
            {
                objectKeys.pop_back();
            }
            else if (event == Event::key && !objectKeys.back().insert(parsed.get<std::string>()).second)
            {
                throw DuplicateKey{parsed.get<std::string>()};
            }
            return true;
        };
        try
        {
            return {nlohmann::json::parse(text.begin(), text.end(), check), {}};
        }
        catch (TooDeep const&)
        {
            return {{}, fmt::format("the document nests deeper than {} levels", limits.maxDepth)};
        }
        catch (DuplicateKey const& duplicate)
        {
            return {{}, fmt::format("the key {} stands twice in one object", quoteJson(duplicate.key))};
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
