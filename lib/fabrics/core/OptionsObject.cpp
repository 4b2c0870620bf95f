#include "fabrics/core/OptionsObject.hpp"

#include "common/BoundedJson.hpp"
#include "common/Status.hpp"

#include <string>

namespace mxl::fabrics
{
    nlohmann::json parseOptionsObject(char const* text, std::string_view what)
    {
        if (text == nullptr || *text == '\0')
        {
            return nlohmann::json::object();
        }
        auto parse = mxl::parseBoundedJson(text);
        if (!parse.ok())
        {
            // The text is quoted as a JSON string so that control bytes and a megabyte of it stay out of the log line.
            fail(MXL_ERR_INVALID_ARG, "{} are not valid JSON ({}): {}", what, parse.problem, quoteJson(nlohmann::json(std::string{text})));
        }
        if (!parse.value.is_object())
        {
            fail(MXL_ERR_INVALID_ARG, "{} must be a JSON object, got: {}", what, quoteJson(parse.value));
        }
        return std::move(parse.value);
    }
}
