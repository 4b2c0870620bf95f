// meta/x-st-2038, the MXL SDK plugin's caps for data flows: mxlsink repacks each buffer's ST 2038 packets as its
// grain's RFC 8331 payload, mxlsrc (data-flow-id) each grain's payload as ST 2038 packets, byte for byte; a buffer
// that is not ST 2038 packets becomes an invalid grain and a warning, and the pipeline goes on.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <media/Rfc8331.hpp>
#include <media/St2038.hpp>

#include <mxl/dataformat.h>
#include <mxl/flow.h>

#include <gst/app/gstappsrc.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto st2038FlowId = "2fbec3b1-1b0f-417d-9059-8b94a47197ef";
    constexpr mxlRational st2038Rate{60000, 1001};

    // One packet worked out by hand (tests/media/AncSamples.hpp): line 9, DID 0x61, SDID 0x01, words 0x00 and 0xFF.
    constexpr std::array<std::uint8_t, 12> handWorkedSt2038{0x00, 0x02, 0x40, 0x01, 0x61, 0x40, 0x50, 0x28, 0x02, 0xff, 0x98, 0xff};
    constexpr std::array<std::uint8_t, 18> handWorkedRfc8331{0x00, 0x0c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00,
                                                             0x00, 0x58, 0x50, 0x14, 0x0a, 0x00, 0xbf, 0xe6, 0x30};

    std::vector<std::uint8_t> st2038Of(std::vector<std::uint8_t> const& rfc8331)
    {
        return mxl::media::writeSt2038(mxl::media::readRfc8331(rfc8331).packets);
    }

    void pushSt2038(GstElement* appsrc, std::uint64_t grain, std::vector<std::uint8_t> const& bytes)
    {
        auto* const buffer = gst_buffer_new_memdup(bytes.data(), bytes.size());
        GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(grain, GST_SECOND * st2038Rate.denominator, st2038Rate.numerator);
        GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(1, GST_SECOND * st2038Rate.denominator, st2038Rate.numerator);
        REQUIRE(gst_app_src_push_buffer(GST_APP_SRC(appsrc), buffer) == GST_FLOW_OK);
    }

    // Each grain's dataPayload, but every odd grain with its ANC_Count one too many (its packets then end before Length does).
    std::vector<std::uint8_t> brokenPayload(std::uint64_t index, mxlRational rate)
    {
        auto bytes = dataPayload(index, rate);
        bytes[2] = static_cast<std::uint8_t>(bytes[2] + index % 2);
        return bytes;
    }

    // appsrc "in" with `caps`, into mxlsink "sink" on the ST 2038 flow of `domain`, not synchronised to the clock.
    std::string appsrcIntoSink(std::string const& caps, TempDomain const& domain)
    {
        return fmt::format("appsrc name=in format=time caps={} ! mxlsink name=sink domain={} flow-id={} sync=false", caps, domain.str(),
                           st2038FlowId);
    }

    std::vector<std::uint8_t> payloadOf(std::vector<std::uint8_t> const& grain, std::size_t bytes)
    {
        return {grain.begin(), grain.begin() + static_cast<std::ptrdiff_t>(bytes)};
    }
}

TEST_CASE("mxlsink: meta/x-st-2038 buffers land as their RFC 8331 payloads, and one that is not ST 2038 becomes an invalid grain")
{
    TempDomain domain{"gst-sink-st2038"};
    setHistory(domain, twoSecondsNs);
    Pipeline pipeline{appsrcIntoSink("meta/x-st-2038,alignment=frame,framerate=60000/1001", domain)};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    auto* const appsrc = pipeline.element("in");
    constexpr std::uint64_t grains = 8;
    constexpr std::uint64_t broken = 3;
    pushSt2038(appsrc, 0, {handWorkedSt2038.begin(), handWorkedSt2038.end()});
    for (std::uint64_t grain = 1; grain < grains; ++grain)
    {
        // Grain 3: a packet whose first 6 bits are not zero.
        pushSt2038(appsrc, grain, grain == broken ? std::vector<std::uint8_t>{0x04, 0x00, 0x00} : st2038Of(dataPayload(grain, st2038Rate)));
    }
    gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
    auto const messages = pipeline.runUntilEnd(std::chrono::seconds{60});
    REQUIRE(sawEos(messages));
    auto const warning = std::find_if(messages.begin(), messages.end(), [](BusMessage const& m) { return m.type == GST_MESSAGE_WARNING; });
    REQUIRE(warning != messages.end());
    CHECK(warning->text == "a meta/x-st-2038 buffer of 3 bytes is written as a gap: ST 2038 packet 1 at byte 0: the 6 bits before "
                           "c_not_y_channel_flag are 0x01, not '000000'");

    auto* const sink = pipeline.element("sink");
    CHECK(counter(sink, "buffers-written") == grains - 1);
    FlowProbe probe{domain, st2038FlowId};
    auto const first = probe.head() - (grains - 1);
    auto const handWorked = probe.grain(first);
    CHECK(payloadOf(handWorked, handWorkedRfc8331.size()) == std::vector<std::uint8_t>(handWorkedRfc8331.begin(), handWorkedRfc8331.end()));
    CHECK(std::all_of(handWorked.begin() + handWorkedRfc8331.size(), handWorked.end(), [](std::uint8_t byte) { return byte == 0; }));
    for (std::uint64_t grain = 1; grain < grains; ++grain)
    {
        INFO("grain ", grain, " of the running time");
        if (grain == broken)
        {
            CHECK(probe.flags(first + grain) == MXL_GRAIN_FLAG_INVALID);
            continue;
        }
        auto const expected = dataPayload(grain, st2038Rate);
        CHECK(payloadOf(probe.grain(first + grain), expected.size()) == expected);
    }
}

TEST_CASE("mxlsink: meta/x-st-2038 caps without a framerate make a 30000/1001 data flow, as the MXL SDK plugin's mxlsink does")
{
    TempDomain domain{"gst-sink-st2038-rate"};
    setHistory(domain, twoSecondsNs);
    Pipeline pipeline{appsrcIntoSink("meta/x-st-2038,alignment=frame", domain)};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    pushSt2038(pipeline.element("in"), 0, {handWorkedSt2038.begin(), handWorkedSt2038.end()});
    // The flow is deleted when the sink stops: it is read while the pipeline plays.
    auto* const sink = pipeline.element("sink");
    REQUIRE(waitForCounter(sink, "buffers-written", 1) == 1);
    FlowProbe probe{domain, st2038FlowId};
    auto const rate = probe.config().common.grainRate;
    CHECK(rate.numerator == 30000);
    CHECK(rate.denominator == 1001);
    CHECK(payloadOf(probe.grain(probe.head()), handWorkedRfc8331.size()) ==
          std::vector<std::uint8_t>(handWorkedRfc8331.begin(), handWorkedRfc8331.end()));
}

TEST_CASE("mxlsrc data-flow-id: each grain comes out as its packets in ST 2038, byte for byte")
{
    TempDomain domain{"gst-src-st2038"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, dataDefinition(st2038FlowId, st2038Rate)};
    constexpr std::size_t buffers = 12;
    Pipeline pipeline{
        fmt::format("mxlsrc name=src data-flow-id={} domain={} num-buffers={} ! appsink name=out", st2038FlowId, domain.str(), buffers)};
    auto const received = pipeline.receiveToEnd("out", buffers);
    for (auto const& buffer : received)
    {
        INFO("grain ", buffer.offset);
        CHECK(buffer.bytes == st2038Of(dataPayload(buffer.offset, st2038Rate)));
        // Two packets: the time code (16 words: 30 + 200 bits -> 29 bytes) and the captions of 0 to 30 words.
        CHECK(buffer.bytes.size() == 29 + (30 + (4 + buffer.offset % 31) * 10 + 7) / 8);
    }
}

TEST_CASE("mxlsrc flow-id keeps meta/x-mxl-rfc8331 first, data-flow-id offers meta/x-st-2038 first, as the MXL SDK plugin")
{
    TempDomain domain{"gst-src-st2038-caps"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, dataDefinition(st2038FlowId, st2038Rate)};
    for (auto const* const property : {"flow-id", "data-flow-id"})
    {
        INFO("mxlsrc ", property);
        Pipeline pipeline{
            fmt::format("mxlsrc name=src {}={} domain={} num-buffers=1 ! fakesink name=out", property, st2038FlowId, domain.str())};
        REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
        REQUIRE(sawEos(pipeline.runUntilEnd(std::chrono::seconds{60})));
        auto* const pad = gst_element_get_static_pad(pipeline.element("out"), "sink");
        auto* const caps = gst_pad_get_current_caps(pad);
        REQUIRE(caps != nullptr);
        CHECK(std::string{gst_structure_get_name(gst_caps_get_structure(caps, 0))} ==
              (std::string{property} == "flow-id" ? "meta/x-mxl-rfc8331" : "meta/x-st-2038"));
        gst_caps_unref(caps);
        gst_object_unref(pad);
    }
}

TEST_CASE("mxlsrc data-flow-id: a grain that is not an RFC 8331 payload becomes a gap event and a warning, and reading goes on")
{
    TempDomain domain{"gst-src-st2038-broken"};
    setHistory(domain, twoSecondsNs);
    FlowFeeder feeder{domain, dataDefinition(st2038FlowId, st2038Rate), 0, brokenPayload};
    constexpr std::size_t buffers = 4;
    Pipeline pipeline{
        fmt::format("mxlsrc name=src data-flow-id={} domain={} num-buffers={} ! appsink name=out", st2038FlowId, domain.str(), buffers)};
    auto& out = pipeline.collect("out");
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    auto const messages = pipeline.runUntilEnd(std::chrono::seconds{60});
    REQUIRE(sawEos(messages));
    auto const received = out.received();
    REQUIRE(received.size() == buffers);
    for (auto const& buffer : received)
    {
        INFO("grain ", buffer.offset);
        CHECK(buffer.offset % 2 == 0);
        CHECK(buffer.bytes == st2038Of(dataPayload(buffer.offset, st2038Rate)));
    }
    CHECK(out.gaps().size() >= buffers - 1);
    auto const warning = std::find_if(messages.begin(), messages.end(), [](BusMessage const& m) { return m.type == GST_MESSAGE_WARNING; });
    REQUIRE(warning != messages.end());
    INFO("warning: ", warning->text);
    CHECK(warning->text.find(fmt::format("of flow {} cannot be given as meta/x-st-2038, sent as a gap: RFC 8331 packet 3 at byte ",
                                         st2038FlowId)) != std::string::npos);
    CHECK(warning->text.find("Data_Count runs past the payload's end") != std::string::npos);
}
