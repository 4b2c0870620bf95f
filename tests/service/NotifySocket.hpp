// The systemd side of the notify protocol, owned by a test: a datagram socket whose path is handed to the service as
// NOTIFY_SOCKET. Every message is kept with the time it arrived, so that tests can check order and intervals.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    class NotifySocket
    {
    public:
        using Clock = std::chrono::steady_clock;

        struct Message
        {
            Clock::time_point at;
            std::string text;
        };

        NotifySocket();
        ~NotifySocket();

        NotifySocket(NotifySocket const&) = delete;
        NotifySocket& operator=(NotifySocket const&) = delete;

        [[nodiscard]] std::string const& path() const noexcept
        {
            return _path;
        }

        // Reads messages until one contains `needle` (an assignment such as "READY=1"); returns it.
        std::optional<Message> waitFor(std::string const& needle, std::chrono::milliseconds timeout);

        // Keeps reading for `duration` and returns the messages containing `needle` received in that time.
        std::vector<Message> collect(std::string const& needle, std::chrono::milliseconds duration);

        // Everything received so far (including what waitFor/collect returned).
        [[nodiscard]] std::vector<Message> const& received() const noexcept
        {
            return _received;
        }

    private:
        int _fd = -1;
        std::string _path;
        std::vector<Message> _received;
        std::size_t _scanned = 0;

        // One message, or nullopt at the deadline.
        std::optional<Message> receive(Clock::time_point deadline);
    };
}
