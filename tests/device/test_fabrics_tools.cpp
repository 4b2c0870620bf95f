// mxl-fabrics-demo --device and the service's 'device' key through the working fake module: the target's flow is
// created on the (fake) GPU, its lines name the device, it publishes a ticket and stops cleanly. Grains moved between
// demo processes on device flows are checked in tests/fabrics-process/test_device_flows.cpp.
#if MXL_TEST_WITH_CUDA && MXL_TEST_WITH_FABRICS_TOOLS

#    include "DeviceTestSupport.hpp"
#    include "Process.hpp"
#    include "TempDomain.hpp"

#    include <doctest/doctest.h>
#    include <fmt/format.h>

#    include <chrono>
#    include <csignal>
#    include <fstream>

using namespace mxl::test;
using namespace std::chrono_literals;

namespace
{
    // 100x60 pictures: a small device allocation.
    constexpr char const* smallVideoFile = "tests/tools/data/video_v210_100x60p25.json";

    // Starts `commandLine` with stderr joined to stdout, waits for each of `lines` in turn, then stops it with SIGTERM:
    // it must exit 0.
    void runUntilStopped(std::string const& commandLine, std::initializer_list<std::string> lines)
    {
        Process process{{"/bin/sh", "-c", "exec " + commandLine + " 2>&1"}};
        for (auto const& line : lines)
        {
            INFO("waiting for: ", line);
            CHECK(process.waitForLine(line, 60s).has_value());
        }
        process.signal(SIGTERM);
        INFO("the rest of its output: ", process.drainOutput(30s));
        CHECK(process.wait(30s) == 0);
    }
}

TEST_CASE("device flows (fake module): mxl-fabrics-demo --device 0 target creates its flow on CUDA device 0, publishes a ticket and "
          "stops cleanly")
{
    useFakeModule("working");
    TempDomain domain{"device-demo"};
    auto const id = flowId(smallVideoFile);
    runUntilStopped(fmt::format("{} -d {} -f {} -p tcp -n 127.0.0.1 -s 0 --device 0", MXL_FABRICS_DEMO, domain.str(),
                                sourcePath(smallVideoFile).string()),
                    {fmt::format("Target flow: {} (payloads on CUDA device 0)", id), "Target info:"});
}

TEST_CASE("device flows (fake module): mxl-fabrics-service target with 'device = 0' creates its flow on CUDA device 0, waits for an "
          "initiator and stops cleanly")
{
    useFakeModule("working");
    TempDomain domain{"device-service"};
    TempDomain files{"device-service-files"};
    auto const config = files.path() / "target.conf";
    // Flow options that already name the same device are kept.
    auto const options = files.path() / "options.json";
    std::ofstream{options} << R"({"payloadLocation": "device", "deviceIndex": 0})";
    std::ofstream{config} << fmt::format(
        "role = target\ndomain = {}\nflow_definition = {}\nflow_options = {}\ndevice = 0\nticket_file = {}\n"
        "node = 127.0.0.1\n",
        domain.str(), sourcePath(smallVideoFile).string(), options.string(), (files.path() / "ticket.json").string());
    auto const id = flowId(smallVideoFile);
    runUntilStopped(
        fmt::format("{} --config {}", MXL_FABRICS_SERVICE, config.string()),
        {fmt::format("target flow {} in domain '{}' (payloads on CUDA device 0)", id, domain.str()), "ready: waiting for an initiator"});
}

#endif
