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
        _thread = std::jthread{[this](std::stop_token const& stop) { receiveLoop(stop); }};
    }

    NotifySocket::~NotifySocket()
    {
        _thread.request_stop();
        _thread.join();
        ::close(_fd);
        ::unlink(_path.c_str());
    }

    void NotifySocket::receiveLoop(std::stop_token const& stop)
    {
        while (!stop.stop_requested())
        {
            pollfd pfd{_fd, POLLIN, 0};
            if (::poll(&pfd, 1, 50) <= 0)
            {
                continue;
            }
            char buffer[4096];
            auto const n = ::recv(_fd, buffer, sizeof buffer, 0);
            if (n > 0)
            {
                std::lock_guard lock{_mutex};
                _received.push_back({Clock::now(), std::string(buffer, static_cast<std::size_t>(n))});
                _arrived.notify_all();
            }
        }
    }

    std::optional<NotifySocket::Message> NotifySocket::waitFor(std::string const& needle, std::chrono::milliseconds timeout)
    {
        auto const deadline = Clock::now() + timeout;
        std::unique_lock lock{_mutex};
        while (true)
        {
            for (; _scanned < _received.size(); ++_scanned)
            {
                if (_received[_scanned].text.find(needle) != std::string::npos)
                {
                    return _received[_scanned++];
                }
            }
            if (_arrived.wait_until(lock, deadline) == std::cv_status::timeout && _scanned == _received.size())
            {
                return std::nullopt;
            }
        }
    }

    std::vector<NotifySocket::Message> NotifySocket::collect(std::string const& needle, std::chrono::milliseconds duration)
    {
        std::this_thread::sleep_for(duration);
        std::lock_guard lock{_mutex};
        std::vector<Message> matching;
        for (; _scanned < _received.size(); ++_scanned)
        {
            if (_received[_scanned].text.find(needle) != std::string::npos)
            {
                matching.push_back(_received[_scanned]);
            }
        }
        return matching;
    }
}
