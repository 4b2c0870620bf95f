// The MXL SDK plugin's property names (rust/gst-mxl-rs in dmf-mxl/mxl): its README's consumer pipelines
// (`mxlsrc video-flow-id=… domain=…`, `mxlsrc audio-flow-id=… domain=…`) read what a writer of the C API wrote, and
// mxlsink's `label`, `description` and `group-hint` land in the definition of the flow it makes from the caps.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <mxl/flow.h>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto sdkVideoFlowId = "2fbec3b1-1b0f-417d-9059-8b94a47197ed";
    constexpr auto sdkAudioFlowId = "2fbec3b1-1b0f-417d-9059-8b94a47197ee";
    constexpr mxlRational sdkVideoRate{25, 1};
}

TEST_CASE("SDK pipeline: mxlsrc video-flow-id reads a video flow byte for byte")
{
    TempDomain domain{"gst-sdk-video-src"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, videoDefinition(sdkVideoFlowId, 64, 8, sdkVideoRate)};
    constexpr std::size_t buffers = 5;
    Pipeline pipeline{fmt::format("mxlsrc video-flow-id={} domain={} num-buffers={} ! videoconvert ! queue ! appsink name=out",
                                  sdkVideoFlowId, domain.str(), buffers)};
    auto const received = pipeline.receiveToEnd("out", buffers);
    checkFedGrains(received, 256 * 8);
}

TEST_CASE("SDK pipeline: mxlsrc audio-flow-id reads an audio flow sample for sample")
{
    TempDomain domain{"gst-sdk-audio-src"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, audioDefinition(sdkAudioFlowId, 2, 48000)};
    constexpr std::size_t buffers = 5;
    Pipeline pipeline{fmt::format("mxlsrc audio-flow-id={} domain={} num-buffers={} ! audioconvert ! audioresample ! queue "
                                  "! audio/x-raw,format=F32LE,layout=interleaved ! appsink name=out",
                                  sdkAudioFlowId, domain.str(), buffers)};
    auto const received = pipeline.receiveToEnd("out", buffers);
    for (auto const& buffer : received)
    {
        INFO("samples from ", buffer.offset);
        REQUIRE(buffer.channels.size() == 2);
        CHECK(wrongSamples(buffer.channels, buffer.offset, 480) == 0);
    }
}

TEST_CASE("SDK properties: mxlsink's label, description and group-hint name the flow it makes from the caps")
{
    TempDomain domain{"gst-sdk-sink-names"};
    Pipeline pipeline{fmt::format("videotestsrc is-live=true ! video/x-raw,format=v210,width=64,height=8,framerate=25/1 "
                                  "! mxlsink name=sink flow-id={} domain={} label=Camera description=\"Camera 1, studio A\" "
                                  "group-hint=Studio:Video",
                                  sdkVideoFlowId, domain.str())};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    auto* const sink = pipeline.element("sink");
    REQUIRE(waitForCounter(sink, "buffers-written", 1) > 0);
    auto* const instance = mxlCreateInstance(domain.str().c_str(), nullptr);
    REQUIRE(instance != nullptr);
    std::size_t size = 0;
    mxlGetFlowDef(instance, sdkVideoFlowId, nullptr, &size);
    std::string text(size + 1, '\0');
    auto const status = mxlGetFlowDef(instance, sdkVideoFlowId, text.data(), &size);
    mxlDestroyInstance(instance);
    REQUIRE(status == MXL_STATUS_OK);
    auto const definition = nlohmann::json::parse(text.c_str());
    CHECK(definition["label"] == "Camera");
    CHECK(definition["description"] == "Camera 1, studio A");
    CHECK(definition["tags"]["urn:x-nmos:tag:grouphint/v1.0"] == nlohmann::json::array({"Studio:Video"}));
}
