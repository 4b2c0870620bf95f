// The systemd notify protocol (sd_notify): READY=1 once the service can move grains, STATUS= lines, WATCHDOG=1
// keep-alives at half the interval systemd asked for (WATCHDOG_USEC), STOPPING=1. Without NOTIFY_SOCKET every call
// does nothing, so the same binary runs by hand.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace mxl::service
{
    class Notifier
    {
    public:
        Notifier();

        // Sends READY=1 (with the status) the first time only.
        void ready(std::string const& status);
        void status(std::string const& status);
        void stopping(std::string const& status);
        // Pings when half the watchdog interval has passed since the last ping; call it from the main loop, so that a
        // stuck loop stops the pings and systemd restarts the service.
        void keepAlive();

        [[nodiscard]] bool isReady() const noexcept
        {
            return _ready;
        }

        [[nodiscard]] std::optional<std::chrono::microseconds> watchdogInterval() const noexcept
        {
            return _watchdog;
        }

    private:
        bool _ready = false;
        std::optional<std::chrono::microseconds> _watchdog;
        std::chrono::steady_clock::time_point _lastPing{};
    };
}
