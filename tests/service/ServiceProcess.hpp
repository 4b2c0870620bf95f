// mxl-fabrics-service run as a child process: settings given as --key value, stdout and stderr read together (the log
// and the fatal messages), optional environment (NOTIFY_SOCKET, WATCHDOG_USEC) and launcher (ip netns exec).
#pragma once

#include "Process.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mxl::test
{
    using Settings = std::vector<std::pair<std::string, std::string>>;

    class ServiceProcess
    {
    public:
        ServiceProcess(Settings const& settings, std::vector<std::string> const& environment = {},
                       std::vector<std::string> const& launcher = {});

        // Reads lines until one contains `needle`; returns it. Every line read is kept for output().
        std::optional<std::string> waitForLine(std::string const& needle, std::chrono::milliseconds timeout);

        // Everything printed so far (lines already returned by waitForLine included).
        std::string output(std::chrono::milliseconds timeout = std::chrono::milliseconds{200})
        {
            _seen += _process.drainOutput(timeout);
            return _seen;
        }

        void signal(int signalNumber)
        {
            _process.signal(signalNumber);
        }

        std::optional<int> wait(std::chrono::milliseconds timeout)
        {
            return _process.wait(timeout);
        }

        [[nodiscard]] pid_t pid() const noexcept
        {
            return _process.pid();
        }

        // The port of "http: listening on HOST:PORT", 0 when the line did not come within the timeout.
        int httpPort(std::chrono::milliseconds timeout = std::chrono::seconds{10});

        [[nodiscard]] static std::string binary();

    private:
        Process _process;
        std::string _seen;
    };
}
