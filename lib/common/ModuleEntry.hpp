// Opening a run-time module (a fabrics backend, the CUDA device module) and finding its one entry point. What the
// entry point returns, and which versions are served, each loader checks itself.
#pragma once

#include <mxl/mxl.h>

#include <string>
#include <string_view>

namespace mxl::modules
{
    // dlopen of `path`, then dlsym of `symbol`. The module stays loaded for the life of the process: its table is used
    // until exit. Failures throw an Error of `status` that names the module as `module` ("fabrics backend").
    [[nodiscard]] void* entryPoint(std::string const& path, char const* symbol, mxlStatus status, std::string_view module);
}
