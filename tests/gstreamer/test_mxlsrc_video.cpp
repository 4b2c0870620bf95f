// mxlsrc with video: a writer of the C API feeds a flow in real time; what comes out of the pipeline is what it
// wrote, grain after grain, each buffer timestamped with its grain's time. Invalid and lost grains are reported.
#include "GstHarness.hpp"
#include "InvalidGrainGaps.hpp"
#include "TestFlows.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    // Two seconds of grains: a pipeline held up by a loaded machine still finds every grain it has not read yet.
    constexpr auto srcVideoFlowId = "a3e1c7b9-5d24-4f6e-8b10-9c2f4d6e1a37";
    constexpr mxlRational videoRate{50, 1};

    std::vector<std::uint8_t> expectedGrain(std::uint64_t index, std::size_t size)
    {
        std::vector<std::uint8_t> bytes(size);
        for (std::size_t offset = 0; offset < size; ++offset)
        {
            bytes[offset] = grainByte(index, offset);
        }
        return bytes;
    }

    std::string source(TempDomain const& domain, std::string const& extra = {})
    {
        return fmt::format("mxlsrc name=src domain={} flow-id={} {}", domain.str(), srcVideoFlowId, extra);
    }
}

TEST_CASE("mxlsrc: grains come out byte for byte, indices consecutive, timestamps the grains' times")
{
    TempDomain domain{"gst-src-video"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, videoDefinition(srcVideoFlowId, 64, 8, videoRate)};
    constexpr std::size_t buffers = 10;
    Pipeline pipeline{source(domain, fmt::format("num-buffers={}", buffers)) + " ! appsink name=out"};
    auto const received = pipeline.receiveToEnd("out", buffers);
    CHECK(pipeline.clockName() == "mxl-tai-clock");
    checkConsecutiveBuffers(pipeline, received, videoRate, 1);
    for (auto const& buffer : received)
    {
        INFO("grain ", buffer.offset);
        CHECK(buffer.bytes == expectedGrain(buffer.offset, buffer.bytes.size()));
    }
    CHECK(received.front().bytes.size() == 256 * 8);
    CHECK(counter(pipeline.element("src"), "buffers-pushed") == buffers);
    CHECK(counter(pipeline.element("src"), "lost") == 0);
}

TEST_CASE("mxlsrc: a grain flagged invalid becomes a gap event at its time, not a buffer")
{
    TempDomain domain{"gst-src-invalid"};
    setHistory(domain, twoSecondsNs);
    constexpr std::uint64_t invalidEvery = 4;
    FlowFeeder feeder{domain, videoDefinition(srcVideoFlowId, 64, 8, videoRate), invalidEvery};
    constexpr std::size_t buffers = 12;
    Pipeline pipeline{source(domain, fmt::format("num-buffers={}", buffers)) + " ! appsink name=out"};
    auto& out = pipeline.collectToEnd("out", buffers);
    auto const received = out.received();
    auto const gaps = out.gaps();
    auto const skippedInvalid =
        checkInvalidGrainsBecameGaps(pipeline, received, gaps, videoRate, invalidEvery,
                                     [](Received const& buffer) { return expectedGrain(buffer.offset, buffer.bytes.size()); });
    CHECK(skippedInvalid >= 2);
    CHECK(counter(pipeline.element("src"), "invalid-grains") >= skippedInvalid);
    CHECK(counter(pipeline.element("src"), "lost") == 0);
}

TEST_CASE("mxlsrc: fallen a ring behind, it reports the lost grains (gap event, QoS message) and goes on from the head")
{
    TempDomain domain{"gst-src-lost"};
    FlowFeeder feeder{domain, videoDefinition(srcVideoFlowId, 64, 8, videoRate)};
    Pipeline pipeline{source(domain) + " ! appsink name=out max-buffers=1"};
    // The appsink holds the streaming thread after the first buffer, so mxlsrc stops reading.
    auto& out = pipeline.collect("out", true);
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    REQUIRE(out.waitFor(1, std::chrono::seconds{30}) == 1);
    auto const held = out.received().front().offset;

    // Wait on the flow itself until the writer is three rings past the held grain, then let mxlsrc go on.
    auto const grainCount = feeder.config().discrete.grainCount;
    FlowProbe probe{domain, srcVideoFlowId};
    probe.grain(held + 3 * grainCount, 30'000'000'000ULL);
    out.release();
    REQUIRE(out.waitFor(4, std::chrono::seconds{30}) >= 4);

    auto const received = out.received();
    auto const resumed = received[1].offset;
    INFO("held grain ", held, ", next buffer of grain ", resumed, ", ring of ", grainCount);
    CHECK(resumed >= held + 3 * grainCount);
    CHECK(received[2].offset == resumed + 1);
    CHECK(received[2].bytes == expectedGrain(received[2].offset, received[2].bytes.size()));
    auto* const src = pipeline.element("src");
    CHECK(counter(src, "lost") >= resumed - held - 1);
    auto const gaps = out.gaps();
    CHECK(std::find(gaps.begin(), gaps.end(), mxlIndexToTimestamp(&videoRate, held + 1) - pipeline.baseTime()) != gaps.end());
    auto const messages = pipeline.drainBus();
    auto const qos = std::find_if(messages.begin(), messages.end(),
                                  [](BusMessage const& message) { return message.type == GST_MESSAGE_QOS && message.source == "src"; });
    REQUIRE(qos != messages.end());
    CHECK(qos->dropped >= resumed - held - 1);
    CHECK(qos->runningTime == mxlIndexToTimestamp(&videoRate, held + 1) - pipeline.baseTime());
}

TEST_CASE("mxlsrc: start-index starts at that grain")
{
    TempDomain domain{"gst-src-start"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, videoDefinition(srcVideoFlowId, 64, 8, videoRate)};
    // Half a second ahead: a grain not yet written, so mxlsrc waits on the flow for it.
    auto const start = mxlGetCurrentIndex(&videoRate) + 25;
    Pipeline pipeline{source(domain, fmt::format("start-index={} num-buffers=3", start)) + " ! appsink name=out"};
    auto const received = pipeline.receiveToEnd("out", 3);
    CHECK(received[0].offset == start);
    CHECK(received[1].offset == start + 1);
    CHECK(received[2].offset == start + 2);
    CHECK(received[0].bytes == expectedGrain(start, received[0].bytes.size()));
}
