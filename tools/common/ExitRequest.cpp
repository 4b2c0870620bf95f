#include "ExitRequest.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <poll.h>
#include <thread>
#include <unistd.h>

namespace mxl::tools
{
    namespace
    {
        volatile std::sig_atomic_t exitFlag = 0;
        // The handler writes a byte per request; the watchdog reads them. write() is async-signal-safe.
        int requestPipe[2] = {-1, -1};
        std::atomic<char const*> currentActivity{"starting"};

        void onSignal(int)
        {
            auto const savedErrno = errno;
            exitFlag = 1;
            char const request = 1;
            [[maybe_unused]] auto const written = ::write(requestPipe[1], &request, 1);
            errno = savedErrno;
        }

        bool awaitRequest(int timeoutMs)
        {
            pollfd poller{requestPipe[0], POLLIN, 0};
            while (true)
            {
                auto const ready = ::poll(&poller, 1, timeoutMs);
                if (ready < 0 && errno == EINTR)
                {
                    continue;
                }
                char request = 0;
                return ready > 0 && ::read(requestPipe[0], &request, 1) == 1;
            }
        }

        void watch()
        {
            awaitRequest(-1);
            auto const deadlineMs = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(stopDeadline).count());
            bool const askedAgain = awaitRequest(deadlineMs);
            if (askedAgain)
            {
                std::fprintf(stderr, "%s: asked to stop a second time; exiting now (stuck in: %s)\n", program_invocation_short_name,
                             currentActivity.load());
            }
            else
            {
                std::fprintf(stderr, "%s: still running %lld s after it was asked to stop; exiting now (stuck in: %s)\n",
                             program_invocation_short_name, static_cast<long long>(stopDeadline.count()), currentActivity.load());
            }
            std::fflush(stderr);
            ::_exit(1);
        }
    }

    void installExitRequestHandlers()
    {
        if (requestPipe[0] < 0)
        {
            if (::pipe2(requestPipe, O_CLOEXEC | O_NONBLOCK) != 0)
            {
                requestPipe[0] = requestPipe[1] = -1;
            }
            else
            {
                // The watchdog only ever ends the process; it needs no join.
                std::thread{watch}.detach();
            }
        }
        struct sigaction action
        {
        };
        action.sa_handler = onSignal;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, nullptr);
        ::sigaction(SIGTERM, &action, nullptr);
    }

    bool exitRequested() noexcept
    {
        return exitFlag != 0;
    }

    void setActivity(char const* activity) noexcept
    {
        currentActivity.store(activity, std::memory_order_relaxed);
    }
}
