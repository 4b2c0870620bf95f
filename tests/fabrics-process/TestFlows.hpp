// The small flow definitions of these tests (tests/fabrics-process/data): 320x180 video and ANC data at 200 grains/s,
// so that several hundred grains move in a couple of seconds.
#pragma once

#include <filesystem>
#include <string>

namespace mxl::test
{
    inline std::filesystem::path testFlow(std::string const& name)
    {
        return std::filesystem::path{MXL_FABRICS_PROCESS_DATA} / name;
    }

    inline constexpr char const* smallV210 = "v210_320x180_200.json";
    // The same at 50 grains/s: for tests whose bound is a share of grains lost, which a loaded machine must not decide.
    inline constexpr char const* smallV210At50 = "v210_320x180_50.json";
    inline constexpr char const* smallV210a = "v210a_320x180_200.json";
    inline constexpr char const* smallData = "smpte291_200.json";
    // Same rate as smallV210, four times the grain size: the grain-size mismatch.
    inline constexpr char const* largerV210 = "v210_640x360_200.json";
}
