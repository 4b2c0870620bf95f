// How failures reach the caller: the reason of a refused connection, and a signal that ends a blocking call
// (MXL_ERR_INTERRUPTED, as the SDK reports EINTR: no error, so nothing is logged).
#include "FabricsHarness.hpp"
#include "Link.hpp"
#include "Skip.hpp"

#include <client/LogCapture.hpp>

#include <doctest/doctest.h>

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

using mxl::client::LogCapture;

namespace
{
    std::string lowercase(std::string text)
    {
        std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return text;
    }

    extern "C" void ignoreSignal(int) {}

    // Sends SIGUSR1 (handled without SA_RESTART, like a service's SIGTERM handler) to the constructing thread every few
    // milliseconds, so that one of them lands while the thread waits inside libfabric.
    class SignalStorm
    {
    public:
        SignalStorm()
            : _target{::pthread_self()}
        {
            struct sigaction action
            {
            };
            action.sa_handler = ignoreSignal;
            sigemptyset(&action.sa_mask);
            action.sa_flags = 0;
            REQUIRE(::sigaction(SIGUSR1, &action, &_previous) == 0);
            _thread = std::jthread{[this](std::stop_token const& stop)
                                   {
                                       while (!stop.stop_requested())
                                       {
                                           std::this_thread::sleep_for(20ms);
                                           ::pthread_kill(_target, SIGUSR1);
                                       }
                                   }};
        }

        ~SignalStorm()
        {
            _thread.request_stop();
            _thread.join();
            ::sigaction(SIGUSR1, &_previous, nullptr);
        }

        SignalStorm(SignalStorm const&) = delete;
        SignalStorm& operator=(SignalStorm const&) = delete;

    private:
        pthread_t _target;
        struct sigaction _previous
        {
        };
        std::jthread _thread;
    };
}

TEST_CASE("tcp: a connection refused is reported with its reason")
{
    LoopbackEnds ends{"fab"};
    REQUIRE(ends.target.setupStatus == MXL_STATUS_OK);
    // The ticket outlives its target: its port is closed now.
    REQUIRE(mxlFabricsDestroyTarget(ends.targetDomain.fabrics, ends.target.target) == MXL_STATUS_OK);
    ends.target.target = nullptr;
    REQUIRE(mxlFabricsInitiatorAddTarget(ends.initiator.initiator, ends.target.ticket) == MXL_STATUS_OK);

    auto const deadline = std::chrono::steady_clock::now() + 5s;
    while (ends.initiator.state(ends.target) != MXL_FABRICS_TARGET_DISCONNECTED && std::chrono::steady_clock::now() < deadline)
    {
        static_cast<void>(mxlFabricsInitiatorMakeProgressBlocking(ends.initiator.initiator, 10));
    }
    std::string reason;
    REQUIRE(ends.initiator.state(ends.target, &reason) == MXL_FABRICS_TARGET_DISCONNECTED);
    INFO("reason: ", reason);
    // libfabric's tcp says the connection was refused; UCX's endpoint says "Destination is unreachable".
    auto const* const expected = backendOf(ends.initiator.fabrics) == "ucx" ? "unreachable" : "refused";
    CHECK(lowercase(reason).find(expected) != std::string::npos);
    CHECK(reason.find("Success") == std::string::npos);
    CHECK(mxlFabricsInitiatorRemoveTarget(ends.initiator.initiator, ends.target.ticket) == MXL_STATUS_OK);
}

namespace
{
    // Runs `scenario` on set-up ends; skipped under the ucx backend, whose blocking calls end only at their timeout: an
    // initiator polls in short pauses (no CAN_WAIT), a tcp target sleeps on its worker's descriptor, and a signal ends
    // neither.
    void withInterruptibleEnds(std::function<void(LoopbackEnds&)> const& scenario)
    {
        LoopbackEnds ends{"fab"};
        if (backendOf(ends.initiator.fabrics) == "ucx")
        {
            MXL_SKIP("the ucx backend's blocking calls end only at their timeout (an initiator polls in short pauses, a tcp target "
                     "sleeps on its worker's descriptor): a signal does not end them");
        }
        REQUIRE(ends.target.setupStatus == MXL_STATUS_OK);
        scenario(ends);
    }

    // Runs `blockingCall` (one that waits up to 3000 ms) under a storm of signals: it ends with INTERRUPTED well before its
    // timeout and logs nothing.
    void checkInterrupted(std::function<mxlStatus()> const& blockingCall)
    {
        mxlStatus status = MXL_STATUS_OK;
        auto const start = std::chrono::steady_clock::now();
        std::string logged;
        {
            LogCapture capture;
            {
                SignalStorm storm;
                status = blockingCall();
            }
            logged = capture.text();
        }
        auto const elapsed = std::chrono::steady_clock::now() - start;
        CHECK(status == MXL_ERR_INTERRUPTED);
        CHECK(elapsed < 2500ms);
        CHECK_MESSAGE(logged.empty(), "logged:\n", logged);
    }
}

TEST_CASE("tcp: a signal ends a blocking MakeProgress (connection events) with INTERRUPTED and no error line")
{
    withInterruptibleEnds(
        [](LoopbackEnds& ends)
        {
            // The target is never driven, so it never accepts: the initiator waits for connection events.
            REQUIRE(mxlFabricsInitiatorAddTarget(ends.initiator.initiator, ends.target.ticket) == MXL_STATUS_OK);
            REQUIRE(mxlFabricsInitiatorMakeProgressNonBlocking(ends.initiator.initiator) == MXL_ERR_NOT_READY);
            checkInterrupted([&] { return mxlFabricsInitiatorMakeProgressBlocking(ends.initiator.initiator, 3000); });
        });
}

TEST_CASE("tcp: a signal ends a blocking ReadGrain (completions) with INTERRUPTED and no error line")
{
    withInterruptibleEnds(
        [](LoopbackEnds& ends)
        {
            REQUIRE(mxlFabricsInitiatorAddTarget(ends.initiator.initiator, ends.target.ticket) == MXL_STATUS_OK);
            REQUIRE(settle(ends.initiator, {&ends.target}, 5s) == MXL_STATUS_OK);
            std::uint64_t index = 0;
            checkInterrupted([&] { return mxlFabricsTargetReadGrain(ends.target.target, 3000, &index); });
        });
}
