// Flow ids as the tools accept them: canonical 8-4-4-4-12 hexadecimal UUIDs in either case (docs/Addressability).
#pragma once

#include <mxl/flowinfo.h>

#include <optional>
#include <string>
#include <string_view>

namespace mxl::client
{
    // The lowercase form used for flow directory names, or nullopt when `text` is not a canonical UUID.
    std::optional<std::string> canonicalFlowId(std::string_view text);

    // As canonicalFlowId, but throws ClientError(Usage) naming the value and the expected form.
    std::string requireFlowId(std::string_view text);

    // The flow's id as a lowercase canonical UUID, from its configuration.
    std::string flowIdOf(mxlFlowConfigInfo const& config);
}
