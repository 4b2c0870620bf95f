// Interface discovery (spec §3.10): every interface of the four providers that this host offers, one entry per
// (provider, address), with caps and an attribute JSON.
#pragma once

#include <mxl/fabrics.h>

namespace mxl::fabrics
{
    // A NULL-terminated list allocated with new; `query` filters by provider (unless ANY) and node.
    mxlFabricsInterfaceList* listInterfaces(mxlFabricsInterfaceConfig const* query);
    void freeInterfaces(mxlFabricsInterfaceList* list) noexcept;
}
