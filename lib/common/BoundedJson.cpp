#include "BoundedJson.hpp"

#include <fmt/format.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace mxl
{
    namespace
    {
        // nlohmann's message without its "[json.exception.parse_error.101] " prefix, which means nothing to users.
        std::string withoutPrefix(std::string_view text)
        {
            if (auto const end = text.find("] "); !text.empty() && text.front() == '[' && end != std::string_view::npos)
            {
                text.remove_prefix(end + 2);
            }
            return std::string{text};
        }

        // The limits, checked by a SAX pass that builds nothing, before the document is built. Not a parser callback:
        // nlohmann's callback parser walks the whole parent container at the end of every object, so a 1 MiB array of
        // empty objects would take about a minute.
        // A key given twice in one object is refused (RFC 8259 leaves its meaning open): nlohmann would keep the last,
        // so that a definition or a request would silently mean something other than one of its readers sees.
        class LimitCheck final : public nlohmann::json_sax<nlohmann::json>
        {
        public:
            explicit LimitCheck(int maxDepth)
                : _maxDepth{maxDepth}
            {
            }

            [[nodiscard]] std::string const& problem() const noexcept
            {
                return _problem;
            }

            bool null() override
            {
                return true;
            }
            bool boolean(bool) override
            {
                return true;
            }
            bool number_integer(number_integer_t) override
            {
                return true;
            }
            bool number_unsigned(number_unsigned_t) override
            {
                return true;
            }
            bool number_float(number_float_t, string_t const&) override
            {
                return true;
            }
            bool string(string_t&) override
            {
                return true;
            }
            bool binary(binary_t&) override
            {
                return true;
            }

            bool start_object(std::size_t) override
            {
                _objectKeys.emplace_back();
                return open();
            }
            bool key(string_t& name) override
            {
                if (!_objectKeys.back().insert(name).second)
                {
                    _problem = fmt::format("the key {} stands twice in one object", quoteJson(name));
                    return false;
                }
                return true;
            }
            bool end_object() override
            {
                _objectKeys.pop_back();
                --_depth;
                return true;
            }
            bool start_array(std::size_t) override
            {
                return open();
            }
            bool end_array() override
            {
                --_depth;
                return true;
            }

            // json::exception, not only parse_error: a number too large for a double (8e424) is an out_of_range.
            bool parse_error(std::size_t, std::string const&, nlohmann::json::exception const& error) override
            {
                _problem = withoutPrefix(error.what());
                return false;
            }

        private:
            bool open()
            {
                if (++_depth > _maxDepth)
                {
                    _problem = fmt::format("the document nests deeper than {} levels", _maxDepth);
                    return false;
                }
                return true;
            }

            int _maxDepth;
            int _depth = 0;
            std::vector<std::unordered_set<std::string>> _objectKeys;
            std::string _problem;
        };
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
        LimitCheck check{limits.maxDepth};
        if (!nlohmann::json::sax_parse(text.begin(), text.end(), &check))
        {
            return {{}, check.problem()};
        }
        return {nlohmann::json::parse(text.begin(), text.end()), {}};
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
