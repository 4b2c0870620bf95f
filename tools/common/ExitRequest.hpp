// SIGINT/SIGTERM ask a tool to finish its current grain and stop cleanly. A process that has not stopped
// stopDeadline after the first request (a transport call that never returns, a peer that cannot be spoken to), or that
// is asked a second time, is ended by a watchdog thread: it prints what the process was doing (setActivity) and exits
// with 1, so that an operator's Ctrl-C and systemd's stop always end it.
#pragma once

#include <chrono>

namespace mxl::tools
{
    // Under the services' TimeoutStopSec (25 s), so that the report is written before systemd's SIGKILL.
    inline constexpr std::chrono::seconds stopDeadline{20};

    // Installs the handlers (without SA_RESTART, so blocking calls return early with EINTR) and the watchdog.
    void installExitRequestHandlers();

    bool exitRequested() noexcept;

    // What the process is doing now, for the watchdog's report: a string that lives as long as the program (a literal).
    void setActivity(char const* activity) noexcept;
}
