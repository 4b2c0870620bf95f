// The MXL SDK plugin's README pipelines (rust/gst-mxl-rs/README.md in dmf-mxl/mxl) that Debian 12's GStreamer 1.22
// elements allow, run as written: "Create video/audio flows from GStreamer test sources" without timeoverlay and
// clockoverlay (pango, not installed), and "Read flows and display video / play audio" with appsinks where the
// README has autovideosink and autoaudiosink. What the readers receive is checked against the flows, read with the C
// API, and the picture against videotestsrc's bars.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <set>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto readmeVideoFlowId = "2fbec3b1-1b0f-417d-9059-8b94a47197ed";
    constexpr auto readmeAudioFlowId = "2fbec3b1-1b0f-417d-9059-8b94a47197ee";

    // Samples of a one-channel audio/float32 flow.
    std::vector<float> float32Samples(TempDomain const& domain, char const* flowId, std::uint64_t lastIndex, std::size_t count)
    {
        auto* const instance = mxlCreateInstance(domain.str().c_str(), nullptr);
        REQUIRE(instance != nullptr);
        mxlFlowReader reader = nullptr;
        REQUIRE(mxlCreateFlowReader(instance, flowId, nullptr, &reader) == MXL_STATUS_OK);
        mxlWrappedMultiBufferSlice slices{};
        auto const status = mxlFlowReaderGetSamples(reader, lastIndex, count, 0, &slices);
        std::vector<float> samples;
        for (auto const& fragment : slices.base.fragments)
        {
            auto const* const first = static_cast<float const*>(fragment.pointer);
            for (std::size_t i = 0; status == MXL_STATUS_OK && i < fragment.size / sizeof(float); ++i)
            {
                samples.push_back(first[i]);
            }
        }
        mxlReleaseFlowReader(instance, reader);
        mxlDestroyInstance(instance);
        REQUIRE(status == MXL_STATUS_OK);
        return samples;
    }

}

TEST_CASE("SDK README: test sources into video and audio flows, read back with video-flow-id and audio-flow-id")
{
    TempDomain domain{"gst-sdk-readme"};
    // The audio is read back after 1.1 s of it was collected: 4 s of history leave room for a loaded machine.
    setHistory(domain, 2 * twoSecondsNs);
    Pipeline producer{fmt::format("videotestsrc ! video/x-raw,width=1920,height=1080,framerate=25/1,format=v216 ! videoconvert ! queue "
                                  "! mxlsink name=vsink flow-id={} domain={} audiotestsrc wave=ticks ! audioconvert ! queue "
                                  "! mxlsink name=asink flow-id={} domain={}",
                                  readmeVideoFlowId, domain.str(), readmeAudioFlowId, domain.str())};
    REQUIRE(producer.play() != GST_STATE_CHANGE_FAILURE);
    REQUIRE(waitForCounter(producer.element("vsink"), "buffers-written", 3) >= 3);
    REQUIRE(waitForCounter(producer.element("asink"), "buffers-written", 3) >= 3);

    constexpr std::size_t buffers = 5;
    // audiotestsrc's ticks come once a second: 1.1 s of 10 ms buffers hold one.
    constexpr std::size_t audioBuffers = 110;
    Pipeline consumer{fmt::format("mxlsrc video-flow-id={} domain={} num-buffers={} ! videoconvert ! queue ! appsink name=video "
                                  "mxlsrc audio-flow-id={} domain={} num-buffers={} ! audioconvert ! audioresample ! queue "
                                  "! appsink name=audio caps=audio/x-raw,format=F32LE",
                                  readmeVideoFlowId, domain.str(), buffers, readmeAudioFlowId, domain.str(), audioBuffers)};
    auto& video = consumer.collect("video");
    auto& audio = consumer.collect("audio");
    REQUIRE(consumer.play() != GST_STATE_CHANGE_FAILURE);
    REQUIRE(video.waitFor(buffers, std::chrono::seconds{60}) == buffers);
    REQUIRE(audio.waitFor(audioBuffers, std::chrono::seconds{60}) == audioBuffers);

    FlowProbe videoFlow{domain, readmeVideoFlowId};
    FlowProbe audioFlow{domain, readmeAudioFlowId};
    CHECK(videoFlow.config().common.format == MXL_DATA_FORMAT_VIDEO);
    CHECK(audioFlow.config().common.format == MXL_DATA_FORMAT_AUDIO);
    // Audio first, before the video checks take their time.
    // audioconvert picks mxlsink's first audio structure, F32LE: an audio/float32 flow, as the SDK plugin's mxlsink makes.
    bool sawTick = false;
    for (auto const& buffer : audio.received())
    {
        INFO("audio samples from ", buffer.offset);
        REQUIRE(buffer.channels.size() == 1);
        auto const count = buffer.offsetEnd - buffer.offset;
        auto const expected = float32Samples(domain, readmeAudioFlowId, buffer.offsetEnd - 1, count);
        CHECK(buffer.channels[0] == expected);
        sawTick = sawTick || std::any_of(expected.begin(), expected.end(), [](float sample) { return sample != 0.0F; });
    }
    CHECK(sawTick);
    for (auto const& buffer : video.received())
    {
        INFO("video grain ", buffer.offset);
        // 1920x1080 v210: 5120 bytes a line.
        REQUIRE(buffer.bytes.size() == std::size_t{5120} * 1080);
        CHECK(buffer.bytes == videoFlow.grain(buffer.offset));
        // SMPTE bars: many different 10-bit words on the first line, not a blank picture.
        std::set<std::uint8_t> const firstLine(buffer.bytes.begin(), buffer.bytes.begin() + 5120);
        CHECK(firstLine.size() > 16);
    }
}
