// The tools' --backend (the services' `backend` key): which transport libmxl-fabrics loads for the instance.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace mxl::tools
{
    // libmxl-fabrics's own default: libfabric, whose tickets the MXL SDK reads.
    inline constexpr char const* defaultFabricsBackend = "ofi";

    // The options JSON of mxlFabricsCreateInstance that chooses `backend`.
    inline std::string fabricsInstanceOptions(std::string const& backend)
    {
        return nlohmann::json{{"backend", backend}}.dump();
    }
}
