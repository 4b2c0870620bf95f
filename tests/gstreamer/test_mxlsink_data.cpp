// mxlsink with SMPTE 291 data: each meta/x-mxl-rfc8331 buffer (payloads made by mxl-test-source's generators) lands
// byte for byte in the grain its running time names, the rest of the grain zero; a grain no buffer covered is
// committed invalid, as for video. A buffer that is not one payload of a data grain, or ST 2038 caps of line alignment,
// stop the pipeline with an error naming them (ST 2038 buffers: test_st2038.cpp).
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <mxl/dataformat.h>

#include <gst/app/gstappsrc.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto sinkDataFlowId = "3c7e1a95-d24b-4f80-b6e3-8a1f0c9d2e57";
    constexpr mxlRational sinkDataRate{60000, 1001};

    std::string appsrcPipeline(TempDomain const& domain)
    {
        return fmt::format("appsrc name=in format=time caps=meta/x-mxl-rfc8331,framerate=60000/1001 "
                           "! mxlsink name=sink domain={} flow-id={} sync=false",
                           domain.str(), sinkDataFlowId);
    }

    void push(GstElement* appsrc, std::uint64_t grain, std::vector<std::uint8_t> const& bytes)
    {
        auto* const buffer = gst_buffer_new_memdup(bytes.data(), bytes.size());
        GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(grain, GST_SECOND * sinkDataRate.denominator, sinkDataRate.numerator);
        GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(1, GST_SECOND * sinkDataRate.denominator, sinkDataRate.numerator);
        REQUIRE(gst_app_src_push_buffer(GST_APP_SRC(appsrc), buffer) == GST_FLOW_OK);
    }
}

TEST_CASE("mxlsink: RFC 8331 payloads land byte for byte in the grains of their running time, the rest zero")
{
    TempDomain domain{"gst-sink-data"};
    setHistory(domain, 2'000'000'000);
    Pipeline pipeline{appsrcPipeline(domain)};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    auto* const appsrc = pipeline.element("in");
    // Grains 0 to 11 of the running time but 6, which the flow must then hold as an invalid grain.
    constexpr std::uint64_t grains = 12;
    constexpr std::uint64_t missing = 6;
    for (std::uint64_t grain = 0; grain < grains; ++grain)
    {
        if (grain != missing)
        {
            push(appsrc, grain, dataPayload(grain, sinkDataRate));
        }
    }
    gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
    REQUIRE(sawEos(pipeline.runUntilEnd(std::chrono::seconds{60})));

    auto* const sink = pipeline.element("sink");
    CHECK(counter(sink, "buffers-written") == grains - 1);
    CHECK(counter(sink, "skipped") == 1);
    FlowProbe probe{domain, sinkDataFlowId};
    CHECK(probe.config().common.format == MXL_DATA_FORMAT_DATA);
    auto const first = probe.head() - (grains - 1);
    for (std::uint64_t grain = 0; grain < grains; ++grain)
    {
        INFO("grain ", grain, " of the running time, ", first + grain, " of the flow");
        if (grain == missing)
        {
            CHECK(probe.flags(first + grain) == MXL_GRAIN_FLAG_INVALID);
            continue;
        }
        auto const bytes = probe.grain(first + grain);
        auto const expected = dataPayload(grain, sinkDataRate);
        REQUIRE(bytes.size() == MXL_DATA_FORMAT_GRAIN_SIZE);
        CHECK(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(expected.size())) == expected);
        CHECK(std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(expected.size()), bytes.end(),
                          [](std::uint8_t byte) { return byte == 0; }));
    }
}

TEST_CASE("mxlsink: a data buffer larger than a grain, or not one RFC 8331 payload, stops the pipeline with an error naming it")
{
    TempDomain domain{"gst-sink-data-errors"};
    // A Length field that agrees with the buffer, 4097 bytes in all: one byte more than a data grain holds.
    std::vector<std::uint8_t> oversized(MXL_DATA_FORMAT_GRAIN_SIZE + 1, 0);
    oversized[0] = static_cast<std::uint8_t>((oversized.size() - 6) >> 8U);
    oversized[1] = static_cast<std::uint8_t>(oversized.size() - 6);
    // A payload with a byte too many after its packets.
    auto padded = dataPayload(3, sinkDataRate);
    padded.push_back(0);
    struct Case
    {
        std::vector<std::uint8_t> bytes;
        std::string expected;
    };
    for (auto const& wrong : {
             Case{oversized, "a meta/x-mxl-rfc8331 buffer of 4097 bytes does not fit a data grain: the payload takes at most 4096 bytes"},
             Case{padded, fmt::format("a meta/x-mxl-rfc8331 buffer of {} bytes is not one RFC 8331 payload: its Length field declares {} "
                                      "bytes",
                                      padded.size(), padded.size() - 1)},
             Case{{0, 0, 0}, "a meta/x-mxl-rfc8331 buffer of 3 bytes is shorter than the 6-byte RFC 8331 header"},
         })
    {
        Pipeline pipeline{appsrcPipeline(domain)};
        REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
        auto* const appsrc = pipeline.element("in");
        push(appsrc, 0, wrong.bytes);
        gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
        auto const error = errorFrom(pipeline.runUntilEnd(std::chrono::seconds{60}), "sink");
        INFO("error from mxlsink: ", error);
        CHECK(error.find(wrong.expected) != std::string::npos);
        CHECK(counter(pipeline.element("sink"), "buffers-written") == 0);
    }
}

TEST_CASE("mxlsink: meta/x-st-2038 caps of another alignment than frame stop the pipeline with an error naming them")
{
    TempDomain domain{"gst-sink-st2038-line"};
    Pipeline pipeline{fmt::format("appsrc name=in format=time caps=meta/x-st-2038,alignment=line ! mxlsink name=sink domain={} sync=false",
                                  domain.str())};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    auto* const appsrc = pipeline.element("in");
    // The caps reach mxlsink with the first buffer.
    gst_app_src_push_buffer(GST_APP_SRC(appsrc), gst_buffer_new_allocate(nullptr, 16, nullptr));
    gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
    auto const error = errorFrom(pipeline.runUntilEnd(std::chrono::seconds{60}), "sink");
    INFO("error from mxlsink: ", error);
    CHECK(error.find("caps meta/x-st-2038 alignment=line cannot be carried: a data grain holds one frame's packets (alignment=frame)") !=
          std::string::npos);
}
