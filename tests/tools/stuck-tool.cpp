// A program whose main thread is stuck in a call that ignores signals and never returns, as a transport call that spins
// forever would be: only the stop watchdog of tools/common can end it.
#include <ExitRequest.hpp>

#include <csignal>
#include <cstdio>
#include <unistd.h>

int main()
{
    mxl::tools::installExitRequestHandlers();
    mxl::tools::setActivity("a call that never returns (stuck-tool)");
    std::printf("stuck\n");
    std::fflush(stdout);
    while (true)
    {
        // pause() returns after each handled signal: the loop is the call that never returns.
        ::pause();
    }
}
