// The test knob MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1 (docs/fabrics.md): every backend registers "device" memory as
// ordinary host memory and reports MXL_FABRICS_IFACE_CAP_HMEM. It is right only with the fake device module
// (tests/device), whose device memory is host memory: it lets the device path run where no GPU, or no transport built
// with CUDA, is present.
#pragma once

#include <cstdlib>
#include <string_view>

namespace mxl::fabrics
{
    [[nodiscard]] inline bool deviceMemoryIsHost() noexcept
    {
        auto const* knob = std::getenv("MXL_FABRICS_DEVICE_MEMORY_IS_HOST");
        return knob != nullptr && std::string_view{knob} == "1";
    }
}
