// The JSON text of the fabrics C API's options arguments (mxlFabricsCreateInstance, target and initiator setup): NULL or
// empty leaves every option at its default, anything else must be one JSON object.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

namespace mxl::fabrics
{
    // An empty object for NULL or empty text; throws MXL_ERR_INVALID_ARG, naming the argument `what`, for text that is not
    // an object.
    [[nodiscard]] nlohmann::json parseOptionsObject(char const* text, std::string_view what);
}
