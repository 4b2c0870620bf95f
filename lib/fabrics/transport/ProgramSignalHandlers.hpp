// What a program set for its signals survives loading a backend. A transport's libraries run their constructors at
// dlopen, long after main() set its handlers, and some take signals over: libinfinipath, which libfabric pulls in for
// its psm provider, installs SIGINT and SIGTERM handlers that exit(1), so a program stopped by a signal would lose its
// orderly shutdown. Linked at start, as before the backends became modules, those constructors ran first and the
// program's handlers replaced theirs; putting the program's handlers back after loading keeps that order.
#pragma once

#include <signal.h>

#include <array>

namespace mxl::fabrics
{
    class ProgramSignalHandlers
    {
    public:
        // Notes every signal's disposition.
        ProgramSignalHandlers() noexcept;
        // Restores each disposition the program had chosen (a handler, or ignoring it) that loading changed; signals
        // left at their default keep what the libraries installed, as they did when linked at start.
        ~ProgramSignalHandlers();

        ProgramSignalHandlers(ProgramSignalHandlers const&) = delete;
        ProgramSignalHandlers& operator=(ProgramSignalHandlers const&) = delete;

    private:
        std::array<struct sigaction, NSIG> _saved{};
        std::array<bool, NSIG> _chosen{};
    };
}
