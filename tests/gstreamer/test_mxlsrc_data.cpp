// mxlsrc with SMPTE 291 data: a writer of the C API feeds a data flow in real time (payloads made by mxl-test-source's
// generators); each buffer is one grain's RFC 8331 payload, byte for byte and no longer, with meta/x-mxl-rfc8331 caps
// at the grain rate, consecutive indices and the grains' times. A grain flagged invalid becomes a gap event.
#include "GstHarness.hpp"
#include "InvalidGrainGaps.hpp"
#include "TestFlows.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto srcDataFlowId = "b8d2f4a6-1e37-4c59-9a0b-6f3e2d1c7a84";
    constexpr mxlRational dataRate{60000, 1001};
}

TEST_CASE("mxlsrc: data grains come out as their RFC 8331 payloads, indices consecutive, timestamps the grains' times")
{
    TempDomain domain{"gst-src-data"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, dataDefinition(srcDataFlowId, dataRate)};
    constexpr std::size_t buffers = 12;
    Pipeline pipeline{fmt::format("mxlsrc name=src domain={} flow-id={} num-buffers={} ! meta/x-mxl-rfc8331,framerate=60000/1001 "
                                  "! appsink name=out",
                                  domain.str(), srcDataFlowId, buffers)};
    auto const received = pipeline.receiveToEnd("out", buffers);
    checkConsecutiveBuffers(pipeline, received, dataRate, 1);
    std::size_t sizes = 0;
    for (std::size_t i = 0; i < received.size(); ++i)
    {
        auto const& buffer = received[i];
        INFO("buffer ", i, " of grain ", buffer.offset);
        if (i > 0)
        {
            sizes += buffer.bytes.size() != received[i - 1].bytes.size() ? 1 : 0;
        }
        CHECK(buffer.bytes == dataPayload(buffer.offset, dataRate));
    }
    // The payloads' lengths change from grain to grain: each buffer is cut at its own Length field.
    CHECK(sizes > 0);
}

TEST_CASE("mxlsrc: a data grain flagged invalid becomes a gap event at its time, not a buffer")
{
    TempDomain domain{"gst-src-data-invalid"};
    setHistory(domain, twoSecondsNs);
    constexpr std::uint64_t invalidEvery = 4;
    FlowFeeder feeder{domain, dataDefinition(srcDataFlowId, dataRate), invalidEvery};
    constexpr std::size_t buffers = 12;
    Pipeline pipeline{
        fmt::format("mxlsrc name=src domain={} flow-id={} num-buffers={} ! appsink name=out", domain.str(), srcDataFlowId, buffers)};
    auto& out = pipeline.collectToEnd("out", buffers);
    auto const received = out.received();
    auto const gaps = out.gaps();
    auto const skippedInvalid = checkInvalidGrainsBecameGaps(pipeline, received, gaps, dataRate, invalidEvery,
                                                             [](Received const& buffer) { return dataPayload(buffer.offset, dataRate); });
    CHECK(skippedInvalid >= 2);
    CHECK(counter(pipeline.element("src"), "invalid-grains") >= skippedInvalid);
}
