#include "fabrics/api/InstanceOptions.hpp"

#include "common/BoundedJson.hpp"
#include "common/Status.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace mxl::fabrics
{
    InstanceOptions InstanceOptions::parse(char const* text)
    {
        auto const* environment = std::getenv("MXL_FABRICS_BACKEND");
        InstanceOptions options{std::string{environment != nullptr && *environment != '\0' ? environment : defaultBackendName}};
        if (text == nullptr || *text == '\0')
        {
            return options;
        }
        auto const json = mxl::parseJsonOrDiscarded(text);
        if (json.is_discarded() || !json.is_object())
        {
            fail(MXL_ERR_INVALID_ARG, "instance options must be a JSON object, got: {}", text);
        }
        if (auto const backend = json.find("backend"); backend != json.end())
        {
            if (!backend->is_string())
            {
                fail(MXL_ERR_INVALID_ARG, "instance option backend must be a string such as \"ofi\", not {}", backend->dump());
            }
            options.backend = backend->get<std::string>();
        }
        return options;
    }
}
