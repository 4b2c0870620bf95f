// mxl-fabrics-demo --device and the service's 'device' key through the working fake module: the target's flow is
// created on the (fake) GPU, its lines name the device, and, as long as libmxl-fabrics refuses device flows at setup,
// the process fails naming the flow and the device and leaves nothing in the domain.
#if MXL_TEST_WITH_CUDA && MXL_TEST_WITH_FABRICS_TOOLS

#    include "DeviceTestSupport.hpp"
#    include "Process.hpp"
#    include "TempDomain.hpp"

#    include <doctest/doctest.h>
#    include <fmt/format.h>

#    include <chrono>
#    include <fstream>

using namespace mxl::test;
using namespace std::chrono_literals;

namespace
{
    // 100x60 pictures: a small device allocation.
    constexpr char const* smallVideoFile = "tests/tools/data/video_v210_100x60p25.json";

    // A program's exit status and stdout and stderr together.
    struct Finished
    {
        std::optional<int> status;
        std::string output;
    };

    Finished runToEnd(std::string const& commandLine)
    {
        Process process{{"/bin/sh", "-c", "exec " + commandLine + " 2>&1"}};
        auto output = process.drainOutput(60s);
        return {process.wait(30s), std::move(output)};
    }
}

// FLIP when libmxl-fabrics moves device flows: the target then prints its ticket and runs until stopped. Keep the
// "Target flow:" check; replace the refusal checks by a ticket and a clean stop (and move grains to it).
TEST_CASE("device flows (fake module): mxl-fabrics-demo --device 0 target is refused at fabrics setup naming the flow and "
          "CUDA device 0, exits non-zero and leaves the domain empty")
{
    useFakeModule("working");
    TempDomain domain{"device-demo"};
    auto const id = flowId(smallVideoFile);
    auto const run = runToEnd(fmt::format("{} -d {} -f {} -p tcp -n 127.0.0.1 -s 0 --device 0", MXL_FABRICS_DEMO, domain.str(),
                                          sourcePath(smallVideoFile).string()));
    INFO("output: ", run.output);
    CHECK(run.output.find(fmt::format("Target flow: {} (payloads on CUDA device 0)\n", id)) != std::string::npos);

    REQUIRE(run.status.has_value());
    CHECK(*run.status != 0);
    CHECK(run.output.find(fmt::format("target setup on node '127.0.0.1' service '0' for flow {} (payloads on CUDA device 0) failed", id)) !=
          std::string::npos);
    CHECK(domainEntries(domain.path()).empty());
}

// FLIP with the case above: the service then publishes its ticket ("ready: waiting for an initiator").
TEST_CASE("device flows (fake module): mxl-fabrics-service target with 'device = 0' creates its flow on CUDA device 0, is refused "
          "at fabrics setup and leaves the domain empty")
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
    auto const run = runToEnd(fmt::format("{} --config {}", MXL_FABRICS_SERVICE, config.string()));
    INFO("output: ", run.output);
    CHECK(run.output.find(fmt::format("target flow {} in domain '{}' (payloads on CUDA device 0)", id, domain.str())) != std::string::npos);

    REQUIRE(run.status.has_value());
    CHECK(*run.status != 0);
    CHECK(run.output.find("(keys 'node', 'service', 'transport', 'device')") != std::string::npos);
    CHECK(domainEntries(domain.path()).empty());
}

#endif
