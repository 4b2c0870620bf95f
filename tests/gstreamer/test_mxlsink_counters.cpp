// mxlsink's bookkeeping around the grain index, driven by an appsrc with explicit timestamps: frames a source
// skipped become invalid grains, a frame repeating an index is dropped, a frame more than a ring old is late.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <mxl/time.h>

#include <gst/app/gstappsrc.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto countersFlowId = "71c0e9d2-4b3a-4f86-a915-3d8e2c6b0f47";
    constexpr std::size_t frameBytes = 256 * 8;
    constexpr GstClockTime frameNs = 20'000'000;

    std::string appsrcPipeline(TempDomain const& domain, bool live)
    {
        return fmt::format("appsrc name=in is-live={} format=time caps=video/x-raw,format=v210,width=64,height=8,framerate=50/1 "
                           "! mxlsink name=sink domain={} flow-id={} sync={}",
                           live, domain.str(), countersFlowId, live);
    }

    void push(GstElement* appsrc, GstClockTime pts, std::uint8_t fill)
    {
        auto* const buffer = gst_buffer_new_allocate(nullptr, frameBytes, nullptr);
        gst_buffer_memset(buffer, 0, fill, frameBytes);
        GST_BUFFER_PTS(buffer) = pts;
        GST_BUFFER_DURATION(buffer) = frameNs;
        REQUIRE(gst_app_src_push_buffer(GST_APP_SRC(appsrc), buffer) == GST_FLOW_OK);
    }
}

TEST_CASE("mxlsink: grains a source skipped are committed invalid, a repeated index is dropped")
{
    TempDomain domain{"gst-sink-counters"};
    setHistory(domain, 2'000'000'000);
    Pipeline pipeline{appsrcPipeline(domain, false)};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    auto* const appsrc = pipeline.element("in");
    // Frames at grains 0, 1, 1 again, then 4: grains 2 and 3 are missing.
    push(appsrc, 0, 0x10);
    push(appsrc, frameNs, 0x11);
    push(appsrc, frameNs, 0x12);
    push(appsrc, 4 * frameNs, 0x14);
    gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
    REQUIRE(sawEos(pipeline.runUntilEnd(std::chrono::seconds{60})));

    auto* const sink = pipeline.element("sink");
    CHECK(counter(sink, "buffers-written") == 3);
    CHECK(counter(sink, "buffers-dropped") == 1);
    CHECK(counter(sink, "skipped") == 2);
    CHECK(counter(sink, "buffers-late") == 0);
    FlowProbe probe{domain, countersFlowId};
    auto const last = probe.head();
    auto const first = last - 4;
    CHECK(probe.grain(first) == std::vector<std::uint8_t>(frameBytes, 0x10));
    CHECK(probe.grain(first + 1) == std::vector<std::uint8_t>(frameBytes, 0x11));
    CHECK(probe.flags(first + 2) == MXL_GRAIN_FLAG_INVALID);
    CHECK(probe.flags(first + 3) == MXL_GRAIN_FLAG_INVALID);
    CHECK(probe.grain(last) == std::vector<std::uint8_t>(frameBytes, 0x14));
}

TEST_CASE("mxlsink: on the clock, a frame more than a ring old is counted late and not written")
{
    TempDomain domain{"gst-sink-late"};
    Pipeline pipeline{appsrcPipeline(domain, true)};
    // The pipeline starts at running time 1 s, five rings of 200 ms (the default history) after the frame's time.
    pipeline.useClockStartingAt(pipeline.element("sink"), 1'000'000'000);
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    auto* const appsrc = pipeline.element("in");
    push(appsrc, 0, 0x20);
    gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
    REQUIRE(sawEos(pipeline.runUntilEnd(std::chrono::seconds{60})));
    auto* const sink = pipeline.element("sink");
    CHECK(counter(sink, "buffers-late") == 1);
    CHECK(counter(sink, "buffers-written") == 0);
}
