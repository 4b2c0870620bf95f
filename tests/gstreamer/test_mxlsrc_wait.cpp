// mxlsrc started before its flow exists, as pipelines written for the MXL SDK's plugin may be: it warns once, naming
// the flow, waits for a writer to create the flow, then reads it from the flow's own caps, byte for byte. A pipeline
// stopped while it waits stops; with wait-for-flow=false a missing flow is an error at start (test_errors.cpp).
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto lateVideoFlowId = "6d0f3b82-c41e-4a57-9b2d-e8a1f7c3d560";
    constexpr auto lateAudioFlowId = "b19e4c7a-2f35-4d86-a0e4-3c5d7b9f1e28";
    constexpr mxlRational lateVideoRate{50, 1};
    constexpr mxlRational lateAudioRate{48000, 1};

    // The warnings mxlsrc `src` posted so far.
    std::vector<std::string> warningsOf(Pipeline& pipeline)
    {
        std::vector<std::string> texts;
        for (auto const& message : pipeline.drainBus())
        {
            if (message.type == GST_MESSAGE_WARNING && message.source == "src")
            {
                texts.push_back(message.text);
            }
        }
        return texts;
    }

    void checkWaitWarning(Pipeline& pipeline, TempDomain const& domain, char const* property, char const* flowId)
    {
        auto const warnings = warningsOf(pipeline);
        REQUIRE(warnings.size() == 1);
        INFO("warning: ", warnings.front());
        CHECK(warnings.front().find(fmt::format("{} \"{}\" is not a flow of domain \"{}\"", property, flowId, domain.str())) !=
              std::string::npos);
        CHECK(warnings.front().find("waiting for a writer to create it") != std::string::npos);
    }
}

TEST_CASE("mxlsrc: a video flow created after the pipeline started is waited for, then read byte for byte")
{
    TempDomain domain{"gst-src-late-video"};
    setHistory(domain, twoSecondsNs);
    constexpr std::size_t buffers = 8;
    Pipeline pipeline{fmt::format("mxlsrc name=src domain={} video-flow-id={} num-buffers={} ! appsink name=out", domain.str(),
                                  lateVideoFlowId, buffers)};
    auto& out = pipeline.collect("out");
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    checkWaitWarning(pipeline, domain, "video-flow-id", lateVideoFlowId);
    CHECK(counter(pipeline.element("src"), "buffers-pushed") == 0);

    FlowFeeder feeder{domain, videoDefinition(lateVideoFlowId, 64, 8, lateVideoRate)};
    auto const messages = pipeline.runUntilEnd(std::chrono::seconds{60});
    INFO("error: ", errorFrom(messages, "src"));
    REQUIRE(sawEos(messages));
    auto const received = out.received();
    REQUIRE(received.size() == buffers);
    checkConsecutiveBuffers(pipeline, received, lateVideoRate, 1);
    checkFedGrains(received, 256 * 8);
}

TEST_CASE("mxlsrc: an audio flow created after the pipeline started is read sample-exact in the layout negotiated then")
{
    TempDomain domain{"gst-src-late-audio"};
    setHistory(domain, twoSecondsNs);
    constexpr std::uint32_t channels = 4;
    constexpr std::size_t buffers = 6;
    constexpr std::uint64_t samplesPerBuffer = 480;
    Pipeline pipeline{fmt::format("mxlsrc name=src domain={} audio-flow-id={} samples-per-buffer={} num-buffers={} "
                                  "! audio/x-raw,layout=non-interleaved ! appsink name=out",
                                  domain.str(), lateAudioFlowId, samplesPerBuffer, buffers)};
    auto& out = pipeline.collect("out");
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    checkWaitWarning(pipeline, domain, "audio-flow-id", lateAudioFlowId);

    FlowFeeder feeder{domain, audioDefinition(lateAudioFlowId, channels, lateAudioRate.numerator)};
    REQUIRE(sawEos(pipeline.runUntilEnd(std::chrono::seconds{60})));
    auto const received = out.received();
    REQUIRE(received.size() == buffers);
    for (auto const& buffer : received)
    {
        INFO("samples from ", buffer.offset);
        CHECK(buffer.offsetEnd == buffer.offset + samplesPerBuffer);
        REQUIRE(buffer.channels.size() == channels);
        CHECK(wrongSamples(buffer.channels, buffer.offset, samplesPerBuffer) == 0);
    }
}

TEST_CASE("mxlsrc: a pipeline stopped while mxlsrc waits for its flow stops, and starts again once the flow exists")
{
    TempDomain domain{"gst-src-late-stop"};
    setHistory(domain, twoSecondsNs);
    constexpr std::size_t buffers = 3;
    Pipeline pipeline{
        fmt::format("mxlsrc name=src domain={} flow-id={} num-buffers={} ! appsink name=out", domain.str(), lateVideoFlowId, buffers)};
    auto& out = pipeline.collect("out");
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    checkWaitWarning(pipeline, domain, "flow-id", lateVideoFlowId);
    // A live source reaches PLAYING with its streaming thread in the wait; stopping must interrupt that wait.
    REQUIRE(gst_element_get_state(pipeline.element("src"), nullptr, nullptr, 30 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS);
    CHECK(pipeline.stop() == GST_STATE_CHANGE_SUCCESS);
    CHECK(out.received().empty());

    FlowFeeder feeder{domain, videoDefinition(lateVideoFlowId, 64, 8, lateVideoRate)};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    REQUIRE(sawEos(pipeline.runUntilEnd(std::chrono::seconds{60})));
    CHECK(out.received().size() == buffers);
    CHECK(warningsOf(pipeline).empty());
}
