#include "fabrics/api/InstanceOptions.hpp"

#include "common/Status.hpp"
#include "fabrics/core/OptionsObject.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace mxl::fabrics
{
    InstanceOptions InstanceOptions::parse(char const* text)
    {
        auto const* environment = std::getenv("MXL_FABRICS_BACKEND");
        InstanceOptions options{std::string{environment != nullptr && *environment != '\0' ? environment : defaultBackendName}};
        auto const json = parseOptionsObject(text, "instance options");
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
