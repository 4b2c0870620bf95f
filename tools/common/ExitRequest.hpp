// SIGINT/SIGTERM ask a tool to finish its current grain and stop cleanly.
#pragma once

namespace mxl::tools
{
    // Installs the handlers (without SA_RESTART, so blocking calls return early with EINTR).
    void installExitRequestHandlers();

    bool exitRequested() noexcept;
}
