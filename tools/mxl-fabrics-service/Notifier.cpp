#include "Notifier.hpp"

#include "ServiceLog.hpp"

#include <systemd/sd-daemon.h>

#include <cstdint>

namespace mxl::service
{
    namespace
    {
        // STATUS= is one line: the protocol separates assignments by newlines.
        std::string oneLine(std::string text)
        {
            for (auto& c : text)
            {
                if (c == '\n')
                {
                    c = ' ';
                }
            }
            return text;
        }

        void send(std::string const& message)
        {
            if (auto const result = ::sd_notify(0, message.c_str()); result < 0)
            {
                log::warning("sd_notify failed ({}); is NOTIFY_SOCKET writable?", result);
            }
        }
    }

    Notifier::Notifier()
    {
        std::uint64_t usec = 0;
        if (::sd_watchdog_enabled(0, &usec) > 0 && usec > 0)
        {
            _watchdog = std::chrono::microseconds{usec};
        }
    }

    void Notifier::ready(std::string const& status)
    {
        if (_ready)
        {
            return;
        }
        _ready = true;
        send("READY=1\nSTATUS=" + oneLine(status));
    }

    void Notifier::status(std::string const& status)
    {
        send("STATUS=" + oneLine(status));
    }

    void Notifier::stopping(std::string const& status)
    {
        send("STOPPING=1\nSTATUS=" + oneLine(status));
    }

    void Notifier::keepAlive()
    {
        if (!_watchdog)
        {
            return;
        }
        auto const now = std::chrono::steady_clock::now();
        if (now - _lastPing >= *_watchdog / 2)
        {
            _lastPing = now;
            send("WATCHDOG=1");
        }
    }
}
