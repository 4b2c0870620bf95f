// The options JSON of mxlFabricsCreateInstance: NULL, "" or an object; "backend" names the transport every target and
// initiator of the instance uses. Without it the environment's MXL_FABRICS_BACKEND names it, so that an application
// built for the MXL SDK (which passes no options) can be moved onto another backend; without that, "ofi". Unknown keys
// are ignored, as in the setup options.
#pragma once

#include <string>

namespace mxl::fabrics
{
    struct InstanceOptions
    {
        std::string backend;

        // Not JSON, not an object, or backend not a string → MXL_ERR_INVALID_ARG.
        static InstanceOptions parse(char const* text);
    };
}
