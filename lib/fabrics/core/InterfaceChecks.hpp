// What the API asks of an interface before any transport looks at it, the checks the SDK's selectSourceInterface
// (lib/fabrics/ofi/src/internal/FabricInterfaceProbe.cpp) makes first: the same for every transport, so checked once,
// here, and in this order.
#pragma once

#include <mxl/fabrics.h>

namespace mxl::fabrics
{
    // Provider ANY → INVALID_STATE, a value outside the enum → INVALID_ARG, caps without REMOTE_WRITE, a service
    // without a node → INVALID_ARG.
    void checkInterfaceConfig(mxlFabricsInterfaceConfig const& config);
    // The provider filter of an interface query (`query` may be NULL): ANY or a value of the enum.
    void checkInterfaceQuery(mxlFabricsInterfaceConfig const* query);
}
