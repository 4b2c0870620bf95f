// The tools' --backend (the services' `backend` key): which transport libmxl-fabrics loads for the instance.
#pragma once

#include <mxl/fabrics_backends.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mxl::client
{
    // The options JSON of mxlFabricsCreateInstance that chooses `backend`; none for an empty one, so that the library's
    // default (MXL_FABRICS_BACKEND, else ofi) applies.
    inline std::string fabricsInstanceOptions(std::string const& backend)
    {
        return backend.empty() ? std::string{} : nlohmann::json{{"backend", backend}}.dump();
    }

    struct InstalledBackend
    {
        std::string name;
        // The module an instance of that name loads.
        std::string path;
    };

    // Every backend module of the search path, in search order (mxlFabricsGetBackends); nothing is loaded. Throws
    // std::runtime_error where the library cannot list them.
    inline std::vector<InstalledBackend> installedBackends()
    {
        mxlFabricsBackendList* found = nullptr;
        if (auto const status = ::mxlFabricsGetBackends(&found); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("cannot list the fabrics backends (mxlStatus {})", static_cast<int>(status))};
        }
        std::unique_ptr<mxlFabricsBackendList, decltype(&::mxlFabricsFreeBackendList)> const list{found, &::mxlFabricsFreeBackendList};
        std::vector<InstalledBackend> backends;
        for (std::size_t i = 0; i < list->count; ++i)
        {
            backends.push_back({list->backends[i].name, list->backends[i].path});
        }
        return backends;
    }
}
