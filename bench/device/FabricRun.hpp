// One fabric row of mxl-device-bench: grains of a host or a device flow moved by a libmxl-fabrics initiator to a target
// in this process, timed on the target's reads and checked byte for byte at the end.
#pragma once

#include "FlowRows.hpp"
#include "PayloadLocation.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::bench::device
{
    struct FabricShape
    {
        FlowShape flow;
        std::string provider;
        PayloadLocation location;
        std::uint32_t depth;
    };

    struct FabricResult
    {
        Throughput throughput;
        std::uint64_t sent = 0;
        std::uint64_t received = 0;
        std::uint64_t checked = 0;
        std::uint64_t verified = 0;

        [[nodiscard]] bool intact() const noexcept
        {
            return received == sent && verified == checked;
        }
    };

    // Either a result, or the message with which libmxl-fabrics refused to set up the target or the initiator
    // (MXL_ERR_UNSUPPORTED_OPERATION). Throws when the row cannot be measured.
    struct FabricOutcome
    {
        std::optional<FabricResult> result;
        std::string refusal;
    };

    FabricOutcome runFabric(FabricShape const& shape);
}
