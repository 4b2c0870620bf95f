// The public interface list of mxlFabricsGetInterfaces: built here from what the transport finds, so that its
// allocation and freeing stay in one library whatever transport reported the entries.
#pragma once

#include <mxl/fabrics.h>

namespace mxl::fabrics
{
    // A NULL-terminated list allocated with new; `query` filters by provider (unless ANY) and node.
    mxlFabricsInterfaceList* listInterfaces(mxlFabricsInterfaceConfig const* query);
    void freeInterfaces(mxlFabricsInterfaceList* list) noexcept;
}
