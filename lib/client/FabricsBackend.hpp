// The tools' --backend (the services' `backend` key): which transport libmxl-fabrics loads for the instance.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace mxl::client
{
    // The options JSON of mxlFabricsCreateInstance that chooses `backend`; none for an empty one, so that the library's
    // default (MXL_FABRICS_BACKEND, else ofi) applies.
    inline std::string fabricsInstanceOptions(std::string const& backend)
    {
        return backend.empty() ? std::string{} : nlohmann::json{{"backend", backend}}.dump();
    }
}
