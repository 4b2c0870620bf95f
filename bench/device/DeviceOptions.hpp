// The command line of mxl-device-bench.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mxl::bench::device
{
    struct DeviceOptions
    {
        std::string flowFile;
        int deviceIndex = 0;
        std::uint32_t grains = 500;
        std::vector<std::string> providers{"tcp", "shm"};
        std::uint32_t depth = 4;
        bool help = false;
    };

    // Throws std::invalid_argument naming the option and the value it rejects.
    DeviceOptions parseDeviceOptions(int argc, char** argv);

    // Usage, every option and every row of the output.
    std::string deviceUsage();
}
