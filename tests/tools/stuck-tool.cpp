// A program whose main thread is stuck in a call that ignores signals and never returns, as a transport call that spins
// forever would be: only the stop watchdog of tools/common can end it. With the argument "progress" its loop marked
// one turn of progress before it got stuck, as the services' loops do.
#include <ExitRequest.hpp>

#include <csignal>
#include <cstdio>
#include <string_view>
#include <unistd.h>

int main(int argc, char** argv)
{
    mxl::tools::installExitRequestHandlers();
    mxl::tools::setActivity("a call that never returns (stuck-tool)");
    if (argc > 1 && std::string_view{argv[1]} == "progress")
    {
        mxl::tools::markProgress();
    }
    std::printf("stuck\n");
    std::fflush(stdout);
    while (true)
    {
        // pause() returns after each handled signal: the loop is the call that never returns.
        ::pause();
    }
}
