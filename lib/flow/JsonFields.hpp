// Reading numbers out of JSON documents written by people (flow definitions, options) and quoting values back in
// error messages.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>

namespace mxl
{
    // The value as an integer when it is a JSON number with an integral value in [min, max] (5 and 5.0 both count,
    // because JSON does not distinguish them and tools write either); nullopt otherwise.
    std::optional<std::int64_t> jsonIntegerIn(nlohmann::json const& value, std::int64_t min, std::int64_t max);

    // nlohmann's parse error without its "[json.exception.parse_error.101] " prefix, which means nothing to users.
    std::string describeParseError(std::exception const& error);

    // The value as it appeared in the document, shortened so that a huge value cannot flood a log line.
    std::string quoteJson(nlohmann::json const& value);
}
