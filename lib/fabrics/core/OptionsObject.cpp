#include "fabrics/core/OptionsObject.hpp"

#include "common/BoundedJson.hpp"
#include "common/Status.hpp"

namespace mxl::fabrics
{
    nlohmann::json parseOptionsObject(char const* text, std::string_view what)
    {
        if (text == nullptr || *text == '\0')
        {
            return nlohmann::json::object();
        }
        auto json = mxl::parseJsonOrDiscarded(text);
        if (json.is_discarded() || !json.is_object())
        {
            fail(MXL_ERR_INVALID_ARG, "{} must be a JSON object, got: {}", what, text);
        }
        return json;
    }
}
