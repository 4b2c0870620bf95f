#include "SilentServer.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <vector>

namespace mxl::test
{
    SilentServer::SilentServer()
        : _listener{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)}
    {
        // Port 0: the kernel chooses one, read back once bound.
        sockaddr_in bound{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}, .sin_zero = {}};
        socklen_t size = sizeof bound;
        auto* const address = reinterpret_cast<sockaddr*>(&bound);
        REQUIRE((::bind(_listener.get(), address, size) == 0 && ::listen(_listener.get(), 16) == 0 &&
                 ::getsockname(_listener.get(), address, &size) == 0));
        _port = ntohs(bound.sin_port);
        _thread = std::thread{[this] { serve(); }};
    }

    SilentServer::~SilentServer()
    {
        {
            std::lock_guard const lock{_mutex};
            _stopping = true;
        }
        _thread.join();
    }

    std::string SilentServer::url() const
    {
        return fmt::format("http://127.0.0.1:{}", _port);
    }

    bool SilentServer::waitForConnection(std::chrono::milliseconds limit)
    {
        std::unique_lock lock{_mutex};
        return _connected.wait_for(lock, limit, [this] { return _accepted > 0; });
    }

    std::size_t SilentServer::openConnections()
    {
        std::lock_guard const lock{_mutex};
        return _open.size();
    }

    std::size_t SilentServer::closedConnections()
    {
        std::lock_guard const lock{_mutex};
        return _closed;
    }

    void SilentServer::serve()
    {
        while (true)
        {
            std::vector<pollfd> watched{{_listener.get(), POLLIN, 0}};
            {
                std::lock_guard const lock{_mutex};
                if (_stopping)
                {
                    return;
                }
                for (auto const& connection : _open)
                {
                    watched.push_back({connection.get(), POLLIN, 0});
                }
            }
            // A short wait, so that the destructor's stop is seen soon.
            if (::poll(watched.data(), watched.size(), 20) <= 0)
            {
                continue;
            }
            std::lock_guard const lock{_mutex};
            if ((watched[0].revents & POLLIN) != 0)
            {
                if (auto const connection = ::accept4(_listener.get(), nullptr, nullptr, SOCK_CLOEXEC); connection >= 0)
                {
                    _open.emplace_back(connection);
                    ++_accepted;
                    _connected.notify_all();
                }
            }
            for (auto it = watched.begin() + 1; it != watched.end(); ++it)
            {
                char discarded[4096];
                if (it->revents == 0)
                {
                    continue;
                }
                auto const got = ::recv(it->fd, discarded, sizeof discarded, MSG_DONTWAIT);
                if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
                {
                    std::erase_if(_open, [fd = it->fd](UniqueFd const& open) { return open.get() == fd; });
                    ++_closed;
                }
            }
        }
    }
}
