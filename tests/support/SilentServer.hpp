// A server on 127.0.0.1 that accepts every connection, reads what comes and never answers: the peer a client must not
// wait on (an authorization server that hangs, a registry that lost its backend). A connection counts as open until the
// client closes it, so that a test can tell whether the client is still waiting.
#pragma once

#include <common/UniqueFd.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <thread>

namespace mxl::test
{
    class SilentServer
    {
    public:
        SilentServer();
        // Closes every connection, so that the clients still waiting get an end of stream.
        ~SilentServer();

        // http://127.0.0.1:<port>
        [[nodiscard]] std::string url() const;

        // Whether a client connected within `limit`.
        [[nodiscard]] bool waitForConnection(std::chrono::milliseconds limit);

        // How many connections the clients have not closed, and how many they have.
        [[nodiscard]] std::size_t openConnections();
        [[nodiscard]] std::size_t closedConnections();

    private:
        std::mutex _mutex;
        std::condition_variable _connected;
        bool _stopping = false;
        std::list<UniqueFd> _open;
        std::size_t _accepted = 0;
        std::size_t _closed = 0;
        UniqueFd _listener;
        std::uint16_t _port = 0;
        // Last: it serves the members above.
        std::thread _thread;

        void serve();
    };
}
