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

    // The 48 kHz stereo float32 flow of flows/, as operations.md configures it.
    inline std::filesystem::path serviceAudioFlow()
    {
        return sourcePath("flows/audio_48k_stereo.json");
    }

    inline constexpr char const* serviceAudioFlowId = "b6d81e24-5a3f-4c90-9f7b-38e0c2a4d165";
}
