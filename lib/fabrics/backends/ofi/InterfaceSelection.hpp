// From an mxlFabricsInterfaceConfig to the one fi_info a target or initiator is built on (the SDK's counterpart:
// selectSourceInterface, lib/fabrics/ofi/src/internal/FabricInterfaceProbe.cpp).
#pragma once

#include <mxl/fabrics.h>

#include "fabrics/backends/ofi/Info.hpp"
#include "fabrics/backends/ofi/OfiProvider.hpp"
#include "fabrics/protocol/TransportDomain.hpp"

namespace mxl::fabrics
{
    struct SelectedInterface
    {
        OfiProvider const* traits;
        Info info;
        // The provider promised that RMA writes to one peer land in posting order (FI_ORDER_RMA_WAW). MSG providers
        // (tcp, verbs RC) always do; for RDM we ask. Without it the initiator waits for its payload writes to be
        // delivered, not only read, before it posts their commit.
        // For the msg transport: sends to one peer are received in posting order (FI_ORDER_SAS).
        bool orderedWrites;
        // RMA, or MSG when asked or (auto) when the provider offers no endpoint with RMA; never Auto.
        TransportChoice transport;
    };

    // Checks the address of `config` as libfabric needs it, asks libfabric for an interface that carries `asked`
    // (core/Transport.hpp) and returns the first one. The API's own checks (InterfaceChecks.hpp) come first.
    // MXL_FABRICS_OFI_HIDE_RMA=1 (a test knob, docs/fabrics.md) makes every provider look as if it had no RMA.
    // `deviceMemory`: an interface that registers device memory too (FI_HMEM, FI_MR_HMEM), over rma only;
    // MXL_ERR_UNSUPPORTED_OPERATION naming the provider and what it lacks where there is none. Under the test knob
    // MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1 (transport/DeviceMemoryKnob.hpp) the host interface serves.
    SelectedInterface selectInterface(mxlFabricsInterfaceConfig const& config, Role role, Transport asked, bool deviceMemory);
}
