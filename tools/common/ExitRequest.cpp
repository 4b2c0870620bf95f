#include "ExitRequest.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace mxl::tools
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        volatile std::sig_atomic_t exitFlag = 0;
        // The handler writes a byte per request; the watchdog reads them. write() is async-signal-safe.
        int requestPipe[2] = {-1, -1};
        std::mutex activityMutex;
        std::string currentActivity = "starting";
        std::atomic<std::uint64_t> progress{0};

        void onSignal(int)
        {
            auto const savedErrno = errno;
            exitFlag = 1;
            char const request = 1;
            [[maybe_unused]] auto const written = ::write(requestPipe[1], &request, 1);
            errno = savedErrno;
        }

        int milliseconds(Clock::duration duration)
        {
            return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(duration).count());
        }

        // True when a stop request came within `timeoutMs`.
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

        // "<program>: <before><activity><after>" on stderr.
        void report(std::string const& before, char const* after)
        {
            std::lock_guard lock{activityMutex};
            std::fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name, before.c_str(), currentActivity.c_str(), after);
            std::fflush(stderr);
        }

        // Until the first stop request: a loop that marked progress and then made none for stuckAfter is reported once
        // per stall.
        void watchProgress()
        {
            auto seen = progress.load();
            auto since = Clock::now();
            bool reported = false;
            while (!awaitRequest(1000))
            {
                auto const now = progress.load(std::memory_order_relaxed);
                if (now != seen)
                {
                    seen = now;
                    since = Clock::now();
                    reported = false;
                    continue;
                }
                if (seen != 0 && !reported && Clock::now() - since >= stuckAfter)
                {
                    reported = true;
                    report("no progress for " + std::to_string(stuckAfter.count()) + " s; stuck in: ", "");
                }
            }
        }

        void watch()
        {
            watchProgress();
            if (awaitRequest(milliseconds(stopDeadline)))
            {
                report("asked to stop a second time; exiting now (stuck in: ", ")");
            }
            else
            {
                report("still running " + std::to_string(stopDeadline.count()) + " s after it was asked to stop; exiting now (stuck in: ",
                       ")");
            }
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

    void setActivity(std::string activity)
    {
        std::lock_guard lock{activityMutex};
        currentActivity = std::move(activity);
    }

    void markProgress() noexcept
    {
        progress.fetch_add(1, std::memory_order_relaxed);
    }
}
