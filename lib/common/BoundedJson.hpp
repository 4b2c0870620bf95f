// JSON that comes from outside the process (files, HTTP bodies, etcd values, tickets, options) is parsed with limits
// on its size and nesting, and with each key once per object: a document nested a million arrays deep parses in
// constant stack, but the code that later walks or prints it recurses once per level. Text written for a peer or a log goes through
// dumpJson, which cannot throw on strings that are not UTF-8 (a request path echoed in an error document).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mxl
{
    struct JsonLimits
    {
        std::size_t maxBytes = 1024 * 1024;
        int maxDepth = 64;
    };

    struct JsonParse
    {
        nlohmann::json value;
        // Empty when the text parsed; else why not: nlohmann's description of the syntax error, the size, the depth or the
        // key that stands twice.
        std::string problem;

        [[nodiscard]] bool ok() const noexcept
        {
            return problem.empty();
        }
    };

    [[nodiscard]] JsonParse parseBoundedJson(std::string_view text, JsonLimits limits = {});

    // The value, or a discarded one (is_discarded()) where parseBoundedJson fails: the bounded form of
    // json::parse(text, nullptr, false) for callers that word their own error.
    [[nodiscard]] nlohmann::json parseJsonOrDiscarded(std::string_view text, JsonLimits limits = {});

    // Compact JSON text; bytes that are not UTF-8 become U+FFFD instead of an exception.
    [[nodiscard]] std::string dumpJson(nlohmann::json const& value);

    // A value as an error message quotes it: dumpJson cut to `maxChars` with "..." where longer.
    [[nodiscard]] std::string quoteJson(nlohmann::json const& value, std::size_t maxChars = 80);
}
