// mxlsink with video: every grain an independent reader finds holds the bytes videotestsrc made for that frame (a tee
// hands the same frames to an appsink for reference), at the index the documented mapping gives.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto sinkVideoFlowId = "0f6a4c2e-8d31-4b57-9e02-7c1d5a3b8e64";
}

TEST_CASE("mxlsink: a non-live pattern lands on consecutive grains from the current index, byte for byte")
{
    TempDomain domain{"gst-sink-video"};
    setHistory(domain, tenSecondsNs);
    constexpr int frames = 30;
    // 100 pixels: v210 lines padded to 128 bytes (384 bytes a line), the case where stride matters.
    Pipeline pipeline{teeIntoSinkAndReference(
        fmt::format("videotestsrc num-buffers={} pattern=ball ! video/x-raw,format=v210,width=100,height=16,framerate=50/1", frames),
        domain, sinkVideoFlowId, "sync=false")};
    mxlRational const rate{50, 1};
    auto const indexBefore = mxlGetCurrentIndex(&rate);
    auto const frameCopies = pipeline.receiveToEnd("reference", frames);
    auto const indexAfter = mxlGetCurrentIndex(&rate);

    FlowProbe probe{domain, sinkVideoFlowId};
    auto const head = probe.head();
    auto const first = head - frames + 1;
    // Without a clock pacing the sink, the first frame lands at the index of the moment it arrives.
    CHECK(first >= indexBefore);
    CHECK(first <= indexAfter);
    for (std::size_t i = 0; i < frameCopies.size(); ++i)
    {
        INFO("frame ", i);
        CHECK(probe.grain(first + i) == frameCopies[i].bytes);
    }
    auto* const sink = pipeline.element("sink");
    CHECK(counter(sink, "buffers-written") == frames);
    CHECK(counter(sink, "buffers-late") == 0);
    CHECK(counter(sink, "buffers-dropped") == 0);
    CHECK(counter(sink, "skipped") == 0);
}

TEST_CASE("mxlsink: on its TAI clock a live source's frame lands at the index of base time + running time")
{
    TempDomain domain{"gst-sink-live"};
    setHistory(domain, tenSecondsNs);
    constexpr int frames = 12;
    Pipeline pipeline{teeIntoSinkAndReference(
        fmt::format("videotestsrc is-live=true num-buffers={} pattern=ball ! video/x-raw,format=v210,width=64,height=8,framerate=25/1",
                    frames),
        domain, sinkVideoFlowId, "")};
    auto const frameCopies = pipeline.receiveToEnd("reference", frames);
    CHECK(pipeline.clockName() == "mxl-tai-clock");

    mxlRational const rate{25, 1};
    FlowProbe probe{domain, sinkVideoFlowId};
    std::uint64_t previous = 0;
    for (std::size_t i = 0; i < frameCopies.size(); ++i)
    {
        auto const index = mxlTimestampToIndex(&rate, pipeline.baseTime() + frameCopies[i].runningTime);
        INFO("frame ", i, " at running time ", frameCopies[i].runningTime, ", index ", index);
        CHECK(probe.grain(index) == frameCopies[i].bytes);
        if (i > 0)
        {
            CHECK(index == previous + 1);
        }
        previous = index;
    }
    CHECK(probe.head() == previous);
    CHECK(counter(pipeline.element("sink"), "buffers-written") == frames);
}
