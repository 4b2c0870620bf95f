// From an mxlFabricsInterfaceConfig to the one fi_info a target or initiator is built on (spec §3.1).
#pragma once

#include <mxl/fabrics.h>

#include "fabrics/backends/ofi/Info.hpp"
#include "fabrics/backends/ofi/OfiProvider.hpp"
#include "fabrics/core/TransportDomain.hpp"

namespace mxl::fabrics
{
    struct SelectedInterface
    {
        OfiProvider const* traits;
        Info info;
        // The provider promised that RMA writes to one peer land in posting order (FI_ORDER_RMA_WAW). MSG providers
        // (tcp, verbs RC) always do; for RDM we ask. Without it the initiator waits for its payload writes to be
        // delivered, not only read, before it posts their commit.
        bool orderedWrites;
    };

    // Checks the address of `config` as libfabric needs it, asks libfabric for a matching interface and returns the
    // first one. The API's own checks (InterfaceChecks.hpp) come first.
    SelectedInterface selectInterface(mxlFabricsInterfaceConfig const& config, Role role);
}
