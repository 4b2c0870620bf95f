// The core's Backend over a backend's C table (fabrics_backend.h), once the loader has entered it.
#pragma once

#include "fabrics/core/Backend.hpp"
#include "fabrics/transport/fabrics_backend.h"

#include <memory>

namespace mxl::fabrics
{
    // `table` (checked by the loader: same ABI major, long enough) lives for the rest of the process.
    [[nodiscard]] std::unique_ptr<Backend> tableBackend(mxlFabricsBackend const& table, BackendIdentity identity);
}
