#include "InterruptFlag.hpp"

#include <atomic>
#include <csignal>

namespace mxl::bench::capacity
{
    namespace
    {
        std::atomic<bool> signalled{false};
        static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

        void raiseFlag(int)
        {
            signalled.store(true, std::memory_order_relaxed);
        }
    }

    void installInterruptHandlers()
    {
        struct sigaction action
        {
        };
        action.sa_handler = raiseFlag;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, nullptr);
        ::sigaction(SIGTERM, &action, nullptr);
    }

    bool interrupted() noexcept
    {
        return signalled.load(std::memory_order_relaxed);
    }

    Interrupted::Interrupted()
        : std::runtime_error{"interrupted by a signal"}
    {
    }

    void throwIfInterrupted()
    {
        if (interrupted())
        {
            throw Interrupted{};
        }
    }
}
