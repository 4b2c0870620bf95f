// Paths and settings the service tests share.
#pragma once

#include "TempDomain.hpp"

#include <filesystem>
#include <string>

namespace mxl::test
{
    // 320x180 v210 at 50 grains/s: light enough for two cores, fast enough to count grains in a second.
    inline std::filesystem::path serviceTestFlow()
    {
        return std::filesystem::path{MXL_SERVICE_TEST_DATA} / "video_320x180_50.json";
    }

    inline constexpr char const* serviceTestFlowId = "7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19";
}
