// What libfabric needs set before its first use in this process.
#pragma once

namespace mxl::fabrics
{
    // Registration caches need a memory monitor; flows are mapped for the life of their registrations anyway, so the
    // cache monitor is disabled (FI_MR_CACHE_MONITOR), before libfabric reads its environment.
    void initialiseOfi();
}
