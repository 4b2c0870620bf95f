// The options JSON of TargetSetup and InitiatorSetup (spec §3.12): NULL, "" or an object; "cqDepth" sizes the
// completion queue. Unknown keys are ignored.
#pragma once

#include <cstddef>
#include <optional>

namespace mxl::fabrics
{
    struct SetupOptions
    {
        std::optional<std::size_t> cqDepth;

        // Not JSON, not an object, cqDepth not a number or below 1 → MXL_ERR_INVALID_ARG.
        static SetupOptions parse(char const* text);
    };
}
