// The log lines of a backend module reach the host's sink: a module links its own copy of lib/common, whose mxl::log
// would otherwise write to stderr past the host's filter and lock. Both sides of mxlFabricsBackendHost.log live here.
#pragma once

#include "fabrics/transport/fabrics_backend.h"

#include <cstddef>
#include <cstdint>

namespace mxl::fabrics
{
    // Host side: the callback libmxl-fabrics puts in mxlFabricsBackendHost.log.
    void writeBackendLine(std::uint32_t level, char const* message, std::size_t length);

    // Backend side, from the entry: sends this module's mxl::log lines through `host` when it has a log callback.
    void logThroughHost(mxlFabricsBackendHost const* host) noexcept;
}
