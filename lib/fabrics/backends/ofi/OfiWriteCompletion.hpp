// A libfabric completion of an initiator's write, classified for the transport-neutral initiator.
#pragma once

#include "fabrics/backends/ofi/CompletionQueue.hpp"
#include "fabrics/core/WriteCompletion.hpp"

#include <optional>

namespace mxl::fabrics
{
    // Connection-loss errnos (reset, refused, shut down, timed out) become MXL_ERR_INTERRUPTED, others the status of
    // statusFromFabricError; the reason is the provider's text with the errno, "Connection refused (111)".
    // Nothing read stays nothing.
    [[nodiscard]] std::optional<WriteCompletion> writeCompletionOf(std::optional<Completion> const& completion);
}
