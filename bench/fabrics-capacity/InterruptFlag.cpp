#include "InterruptFlag.hpp"

#include "ExitRequest.hpp"

namespace mxl::bench::capacity
{
    void installInterruptHandlers()
    {
        tools::installExitRequestHandlers();
    }

    bool interrupted() noexcept
    {
        return tools::exitRequested();
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
