// Reading numbers out of JSON documents written by people (flow definitions, options); common/BoundedJson.hpp parses
// them and quotes values back in error messages.
#pragma once

#include "common/BoundedJson.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace mxl
{
    // The value as an integer when it is a JSON number with an integral value in [min, max] (5 and 5.0 both count,
    // because JSON does not distinguish them and tools write either); nullopt otherwise.
    std::optional<std::int64_t> jsonIntegerIn(nlohmann::json const& value, std::int64_t min, std::int64_t max);
}
