// The public interface list of mxlFabricsGetInterfaces: built here from what the transport finds, so that its
// allocation and freeing stay in one library whatever transport reported the entries.
#pragma once

#include <mxl/fabrics.h>

#include "fabrics/core/Backend.hpp"

namespace mxl::fabrics
{
    // The interfaces of `backend` as a NULL-terminated list allocated with new; `query` filters by provider (unless ANY)
    // and node.
    mxlFabricsInterfaceList* listInterfaces(Backend& backend, mxlFabricsInterfaceConfig const* query);
    void freeInterfaces(mxlFabricsInterfaceList* list) noexcept;
}
