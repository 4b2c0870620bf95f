#include "fabrics/core/SetupOptions.hpp"

#include "common/Status.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace mxl::fabrics
{
    SetupOptions SetupOptions::parse(char const* text)
    {
        SetupOptions options;
        if (text == nullptr || *text == '\0')
        {
            return options;
        }
        auto const json = nlohmann::json::parse(text, nullptr, false);
        if (json.is_discarded() || !json.is_object())
        {
            fail(MXL_ERR_INVALID_ARG, "options must be a JSON object, got: {}", text);
        }
        if (auto const depth = json.find("cqDepth"); depth != json.end())
        {
            if (!depth->is_number())
            {
                fail(MXL_ERR_INVALID_ARG, "option cqDepth must be a number, not {}", depth->dump());
            }
            auto const value = depth->get<double>();
            if (!(value >= 1.0) || value > 1048576.0)
            {
                fail(MXL_ERR_INVALID_ARG, "option cqDepth must be between 1 and 1048576, not {}", depth->dump());
            }
            // Fractions are truncated, as in the reference.
            options.cqDepth = static_cast<std::size_t>(std::trunc(value));
        }
        return options;
    }
}
