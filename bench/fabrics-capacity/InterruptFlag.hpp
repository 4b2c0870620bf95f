// SIGINT and SIGTERM end the bench cleanly: the handler only raises a flag, every wait loop checks it and unwinds, and
// the owners of the children and the scratch directories stop and remove them on the way out. Forked children inherit
// the handler, so SIGTERM (from the bench, or the kernel when the bench dies) ends their loops the same way.
#pragma once

#include <stdexcept>

namespace mxl::bench::capacity
{
    void installInterruptHandlers();

    [[nodiscard]] bool interrupted() noexcept;

    class Interrupted : public std::runtime_error
    {
    public:
        Interrupted();
    };

    // Throws Interrupted once a signal arrived.
    void throwIfInterrupted();
}
