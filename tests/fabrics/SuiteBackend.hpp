// What a run of the fabrics suites is set to: its backend (MXL_FABRICS_BACKEND, as the core reads it; "ofi" without
// it), and the test knob that makes every backend register device memory as host memory
// (lib/fabrics/transport/DeviceMemoryKnob.hpp).
#pragma once

#include <cstdlib>
#include <string>

namespace mxl::test::fabrics
{
    constexpr char const* deviceMemoryIsHostKnob = "MXL_FABRICS_DEVICE_MEMORY_IS_HOST";

    inline std::string suiteBackendName()
    {
        auto const* name = std::getenv("MXL_FABRICS_BACKEND");
        return name != nullptr && *name != '\0' ? name : "ofi";
    }
}
