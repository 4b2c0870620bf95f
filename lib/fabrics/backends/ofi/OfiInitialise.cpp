#include "fabrics/backends/ofi/OfiInitialise.hpp"

#include <cstdlib>

namespace mxl::fabrics
{
    void initialiseOfi()
    {
        ::setenv("FI_MR_CACHE_MONITOR", "disabled", 1);
    }
}
