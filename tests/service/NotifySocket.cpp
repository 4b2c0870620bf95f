#include "NotifySocket.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace mxl::test
{
    namespace
    {
        std::atomic<int> socketCount{0};
    }

    NotifySocket::NotifySocket()
        : _fd{::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)}
        , _path{fmt::format("/tmp/mxl-service-test-{}-{}.notify", ::getpid(), socketCount++)}
    {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, _path.c_str(), sizeof address.sun_path - 1);
        ::unlink(_path.c_str());
        if (_fd < 0 || ::bind(_fd, reinterpret_cast<sockaddr const*>(&address), sizeof address) != 0)
        {
            throw std::runtime_error{fmt::format("cannot bind the notify socket {}: {}", _path, std::strerror(errno))};
        }
    }

    NotifySocket::~NotifySocket()
    {
        ::close(_fd);
        ::unlink(_path.c_str());
    }

    std::optional<NotifySocket::Message> NotifySocket::receive(Clock::time_point deadline)
    {
        auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        pollfd pfd{_fd, POLLIN, 0};
        if (left <= 0 || ::poll(&pfd, 1, static_cast<int>(left)) <= 0)
        {
            return std::nullopt;
        }
        char buffer[4096];
        auto const n = ::recv(_fd, buffer, sizeof buffer, 0);
        if (n <= 0)
        {
            return std::nullopt;
        }
        _received.push_back({Clock::now(), std::string(buffer, static_cast<std::size_t>(n))});
        return _received.back();
    }

    std::optional<NotifySocket::Message> NotifySocket::waitFor(std::string const& needle, std::chrono::milliseconds timeout)
    {
        // Messages already received but not yet looked at come first.
        while (_scanned < _received.size())
        {
            auto const& message = _received[_scanned++];
            if (message.text.find(needle) != std::string::npos)
            {
                return message;
            }
        }
        auto const deadline = Clock::now() + timeout;
        while (auto message = receive(deadline))
        {
            _scanned = _received.size();
            if (message->text.find(needle) != std::string::npos)
            {
                return message;
            }
        }
        return std::nullopt;
    }

    std::vector<NotifySocket::Message> NotifySocket::collect(std::string const& needle, std::chrono::milliseconds duration)
    {
        std::vector<Message> matching;
        auto const deadline = Clock::now() + duration;
        while (auto message = receive(deadline))
        {
            if (message->text.find(needle) != std::string::npos)
            {
                matching.push_back(*message);
            }
        }
        _scanned = _received.size();
        return matching;
    }
}
