// The public list of mxlFabricsGetBackends: allocated and freed here, so that it owns its strings whatever the
// loader's own records do afterwards.
#pragma once

#include <mxl/fabrics_backends.h>

#include "fabrics/transport/BackendLoader.hpp"

#include <vector>

namespace mxl::fabrics
{
    [[nodiscard]] mxlFabricsBackendList* listBackends(std::vector<BackendFile> const& files);
    void freeBackends(mxlFabricsBackendList* list) noexcept;
}
