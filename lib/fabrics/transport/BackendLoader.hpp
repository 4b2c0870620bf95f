// Finds, loads and enters fabrics backends: libmxl-fabrics-<name>.so, looked for in each directory of
// MXL_FABRICS_BACKEND_PATH (colon separated), then in mxl-fabrics/ beside libmxl-fabrics.so (so that a build tree runs
// without an environment), then in the install directory. docs/fabrics-backends.md has the whole contract.
#pragma once

#include "fabrics/core/Backend.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mxl::fabrics
{
    // The backend `name`, loaded and entered on the first call for that name and kept (never unloaded) for the rest of
    // the process; thread-safe. Fails with one line naming the backend, the file(s) and the loader's or the backend's
    // words: MXL_ERR_INVALID_ARG for a name that cannot name a file, MXL_ERR_NO_FABRIC when no file is found, it cannot
    // be loaded or its entry fails, MXL_ERR_UNSUPPORTED_OPERATION when it implements another backend ABI.
    [[nodiscard]] Backend& backendNamed(std::string_view name);

    struct BackendFile
    {
        std::string name;
        std::string path;
    };

    // Every libmxl-fabrics-<name>.so of the search path, in search order, the first file of each name (the one
    // backendNamed loads); nothing is loaded.
    [[nodiscard]] std::vector<BackendFile> backendFiles();
}
