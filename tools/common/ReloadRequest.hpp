// SIGHUP asks a service to read its certificate files again (systemctl reload): the handler only notes the request,
// and the service's loop takes it up between grains, so that a reload never interrupts a transfer.
#pragma once

namespace mxl::tools
{
    // Installs the SIGHUP handler (without SA_RESTART, as the stop handlers).
    void installReloadRequestHandler();

    // Whether a reload was asked for since the last call; requests in between are one.
    bool takeReloadRequest() noexcept;
}
