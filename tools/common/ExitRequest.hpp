// SIGINT/SIGTERM ask a tool to finish its current grain and stop cleanly. A watchdog thread makes sure it does:
// - a process that has not stopped stopDeadline after the first request (a transport call that never returns, a peer
//   that cannot be spoken to), or that is asked a second time (more than a second after the first), prints what it was
//   doing (setActivity) and exits with 1, so that an operator's Ctrl-C and systemd's stop always end it;
// - a loop that marks its progress (markProgress) and then makes none for stuckAfter is reported once, naming what it
//   is doing, while it runs: the place to name the peer it is waiting on.
#pragma once

#include <chrono>
#include <string>

namespace mxl::tools
{
    // Under the services' TimeoutStopSec (25 s), so that the report is written before systemd's SIGKILL.
    inline constexpr std::chrono::seconds stopDeadline{20};
    inline constexpr std::chrono::seconds stuckAfter{10};

    // Installs the handlers (without SA_RESTART, so blocking calls return early with EINTR) and the watchdog.
    void installExitRequestHandlers();

    bool exitRequested() noexcept;

    // What the process is doing now, for the watchdog's reports, e.g. "writing to the tcp target of epoch 17 (ticket
    // from 'http://...')".
    void setActivity(std::string activity);

    // One more turn of the process's main loop.
    void markProgress() noexcept;
}
