#include "ExitRequest.hpp"

#include <csignal>

namespace mxl::tools
{
    namespace
    {
        volatile std::sig_atomic_t exitFlag = 0;

        void onSignal(int)
        {
            exitFlag = 1;
        }
    }

    void installExitRequestHandlers()
    {
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
}
