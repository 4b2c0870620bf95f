#include "ExitRequest.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
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

        // Read by every thread; a lock-free atomic is safe in a signal handler.
        std::atomic<int> exitFlag{0};
        static_assert(std::atomic<int>::is_always_lock_free);
        // The handler writes a byte per request; the watchdog reads them. write() is async-signal-safe.
        int requestPipe[2] = {-1, -1};
        // Never destroyed: the watchdog may report while exit() runs the static destructors.
        std::mutex& activityMutex = *new std::mutex;
        std::string& currentActivity = *new std::string{"starting"};
        std::atomic<std::uint64_t> progress{0};
        // Requests this close together are one (a terminal's Ctrl-C to the process group and a wrapper passing it on).
        constexpr std::chrono::seconds sameRequest{1};

        void onSignal(int)
        {
            auto const savedErrno = errno;
            exitFlag.store(1, std::memory_order_relaxed);
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

        // "<program>: <before><activity><after>" on stderr, given up after a second where stderr does not take it (a
        // full pipe must not keep the watchdog from ending the process).
        void report(std::string const& before, char const* after)
        {
            std::string line;
            {
                std::lock_guard lock{activityMutex};
                line = std::string{program_invocation_short_name} + ": " + before + currentActivity + after + "\n";
            }
            pollfd poller{STDERR_FILENO, POLLOUT, 0};
            for (std::size_t written = 0; written < line.size() && ::poll(&poller, 1, 1000) > 0;)
            {
                auto const n = ::write(STDERR_FILENO, line.data() + written, line.size() - written);
                if (n <= 0)
                {
                    break;
                }
                written += static_cast<std::size_t>(n);
            }
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
            auto const asked = Clock::now();
            auto const left = [asked](Clock::duration limit) { return std::max(0, milliseconds(limit - (Clock::now() - asked))); };
            while (left(sameRequest) > 0 && awaitRequest(left(sameRequest)))
            {
            }
            if (awaitRequest(left(stopDeadline)))
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
        return exitFlag.load(std::memory_order_relaxed) != 0;
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
