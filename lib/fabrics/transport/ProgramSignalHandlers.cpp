#include "fabrics/transport/ProgramSignalHandlers.hpp"

namespace mxl::fabrics
{
    ProgramSignalHandlers::ProgramSignalHandlers() noexcept
    {
        for (int signal = 1; signal < NSIG; ++signal)
        {
            // Fails for numbers that are no signal, and for SIGKILL and SIGSTOP nothing can be chosen anyway.
            _chosen[signal] = ::sigaction(signal, nullptr, &_saved[signal]) == 0 && _saved[signal].sa_handler != SIG_DFL;
        }
    }

    ProgramSignalHandlers::~ProgramSignalHandlers()
    {
        for (int signal = 1; signal < NSIG; ++signal)
        {
            if (_chosen[signal])
            {
                ::sigaction(signal, &_saved[signal], nullptr);
            }
        }
    }
}
