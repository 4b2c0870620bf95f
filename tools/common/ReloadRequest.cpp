#include "ReloadRequest.hpp"

#include <atomic>
#include <csignal>

namespace mxl::tools
{
    namespace
    {
        std::atomic<bool> reloadFlag{false};
        static_assert(std::atomic<bool>::is_always_lock_free);

        void onReload(int)
        {
            reloadFlag.store(true, std::memory_order_relaxed);
        }
    }

    void installReloadRequestHandler()
    {
        struct sigaction action
        {
        };
        action.sa_handler = &onReload;
        ::sigemptyset(&action.sa_mask);
        ::sigaction(SIGHUP, &action, nullptr);
    }

    bool takeReloadRequest() noexcept
    {
        return reloadFlag.exchange(false, std::memory_order_relaxed);
    }
}
