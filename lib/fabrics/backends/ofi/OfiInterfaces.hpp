// Interface discovery over libfabric, as in the SDK's lib/fabrics/ofi/src/internal/FabricInterfaceProbe.cpp: every
// interface of the four providers that this host offers, one entry per (provider, address), with caps and an
// attribute JSON.
#pragma once

#include <mxl/fabrics.h>

#include <functional>

namespace mxl::fabrics
{
    // Emits each interface that `query` (may be NULL) lets through: its provider unless ANY, its node if given. The
    // strings of an entry live only during its emit call.
    void forEachOfiInterface(mxlFabricsInterfaceConfig const* query, std::function<void(mxlFabricsInterfaceConfig const&)> const& emit);
}
