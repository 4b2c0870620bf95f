// Peers whose error text changes at every answer (a request id, a time) cannot flood a service's log: a retried step
// logs the first few kinds of failure of an outage and then nothing until it succeeds (common/OutageLog.hpp).
#include "RawHttp.hpp"
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <common/UniqueFd.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <atomic>
#include <iterator>
#include <sys/socket.h>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;

        // Answers every request on a loopback port with 500 and a body that names the request's number and, in words,
        // one of five workers in turn: five kinds of failure (FailureKind.hpp), each text new.
        class VaryingErrorPeer
        {
        public:
            VaryingErrorPeer()
            {
                _thread = std::thread{[this] { serve(); }};
            }

            ~VaryingErrorPeer()
            {
                ::shutdown(_socket.get(), SHUT_RDWR);
                _thread.join();
            }

            [[nodiscard]] int port() const noexcept
            {
                return _port;
            }

            // Whether `count` requests were answered within `timeout`.
            [[nodiscard]] bool answered(int count, std::chrono::milliseconds timeout) const
            {
                auto const deadline = std::chrono::steady_clock::now() + timeout;
                while (_answered < count && std::chrono::steady_clock::now() < deadline)
                {
                    std::this_thread::sleep_for(50ms);
                }
                return _answered >= count;
            }

        private:
            int _port = 0;
            UniqueFd _socket{listenOnLoopback(_port)};
            std::atomic<int> _answered{0};
            std::thread _thread;

            void serve()
            {
                while (true)
                {
                    UniqueFd client{::accept(_socket.get(), nullptr, nullptr)};
                    if (client.get() < 0)
                    {
                        return;
                    }
                    char request[4096];
                    static_cast<void>(::recv(client.get(), request, sizeof request, 0));
                    static constexpr char const* workers[] = {"north", "south", "west", "upper", "lower"};
                    auto const number = _answered.load();
                    auto const body = fmt::format(R"({{"code": 500, "error": "busy", "debug": "request {} on the {} worker"}})", number,
                                                  workers[number % std::size(workers)]);
                    auto const answer =
                        fmt::format("HTTP/1.0 500 Internal Server Error\r\nContent-Length: {}\r\n\r\n{}", body.size(), body);
                    static_cast<void>(::send(client.get(), answer.data(), answer.size(), MSG_NOSIGNAL));
                    ++_answered;
                }
            }
        };
    }

    TEST_CASE("is-05: a sender whose error text changes at every answer is logged three times in an outage, not at every retry")
    {
        VaryingErrorPeer sender;
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ServiceProcess target{targetSettings(directories)};
        auto const port = target.httpPort();
        REQUIRE(port != 0);
        activateWithSenderAt(port, sender.port());

        // The hand-over is retried every second: eight answers, each with its own text, make one outage.
        REQUIRE(target.waitForLine("(further failures are not logged until one succeeds)", 30s));
        REQUIRE(sender.answered(8, 60s));
        auto const output = target.output();
        INFO(output);
        CHECK(occurrences(output, "cannot hand the ticket to sender") == 3);
        CHECK(occurrences(output, R"("debug": "request )") == 3);
        CHECK_FALSE(target.wait(0ms));
    }
}
