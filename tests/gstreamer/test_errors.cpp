// Wrong settings and media the elements cannot carry: the pipeline stops with an error from the element, whose text
// names the property or the value and what was expected; nothing crashes.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto errorCaseFlowId = "e5b37d20-9a4c-4f18-86d1-2b7c0e5f9a63";

    struct Case
    {
        std::string pipeline;
        char const* element;
        std::string expected;
    };

    void checkFails(Case const& wrong)
    {
        INFO("pipeline: ", wrong.pipeline);
        Pipeline pipeline{wrong.pipeline};
        pipeline.play();
        auto const messages = pipeline.runUntilEnd(std::chrono::seconds{30});
        auto const error = errorFrom(messages, wrong.element);
        INFO("error from ", wrong.element, ": ", error);
        CHECK(error.find(wrong.expected) != std::string::npos);
    }

    std::string const videoSource = "videotestsrc num-buffers=3 ! video/x-raw,format=v210,width=64,height=8,framerate=25/1";
}

TEST_CASE("mxlsink: wrong properties and uncarried caps stop the pipeline with an error naming them")
{
    TempDomain domain{"gst-errors-sink"};
    auto const flowDef = sourcePath("flows/v210_1080p25.json").string();
    for (auto const& wrong : {
             Case{videoSource + " ! mxlsink name=sink", "sink", "domain is not set"},
             Case{videoSource + " ! mxlsink name=sink domain=/nonexistent/mxl-domain", "sink",
                  "domain \"/nonexistent/mxl-domain\" does not exist"},
             Case{fmt::format("{} ! mxlsink name=sink domain={} flow-id=not-a-uuid", videoSource, domain.str()), "sink",
                  "flow-id \"not-a-uuid\" is not a UUID"},
             Case{fmt::format("{} ! mxlsink name=sink domain={} flow-def=/nonexistent/flow.json", videoSource, domain.str()), "sink",
                  "flow-def \"/nonexistent/flow.json\" cannot be read"},
             Case{fmt::format("{} ! mxlsink name=sink domain={} flow-def={}", videoSource, domain.str(), flowDef), "sink",
                  fmt::format("caps do not match flow-def \"{}\": size 64x8 against 1920x1080", flowDef)},
             Case{fmt::format("{} ! mxlsink name=sink domain={} flow-def={} flow-id={}", videoSource, domain.str(),
                              sourcePath("flows/v210_1080p25.json").string(), errorCaseFlowId),
                  "sink", "caps do not match"},
             Case{fmt::format("videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=8 ! mxlsink name=sink domain={}",
                              domain.str()),
                  "sink",
                  "caps format I420 cannot be carried: mxlsink takes v210 video, F32LE/F64LE audio or meta/x-mxl-rfc8331 or "
                  "meta/x-st-2038 data"},
             Case{fmt::format("videotestsrc num-buffers=3 ! video/x-raw,format=v210,width=64,height=8,framerate=0/1 ! mxlsink name=sink "
                              "domain={}",
                              domain.str()),
                  "sink", "caps framerate 0/1 cannot be carried"},
             Case{fmt::format("audiotestsrc num-buffers=3 ! audio/x-raw,format=S16LE ! mxlsink name=sink domain={}", domain.str()), "sink",
                  "caps format S16LE cannot be carried"},
         })
    {
        checkFails(wrong);
    }
}

TEST_CASE("mxlsrc: wrong properties and flows it cannot carry stop the pipeline with an error naming them")
{
    TempDomain domain{"gst-errors-src"};
    constexpr auto keyedId = "4d8a1f36-b2e7-4c95-a0d3-7e6f2b9c1a58";
    FlowFeeder keyed{domain, videoDefinition(keyedId, 64, 8, mxlRational{25, 1}, "video/v210a")};
    constexpr auto videoId = "7b2e9c41-d3a8-4f65-9e07-1c4b8a2f6d93";
    FlowFeeder video{domain, videoDefinition(videoId, 64, 8, mxlRational{25, 1})};
    for (auto const& wrong : {
             Case{"mxlsrc name=src flow-id=" + std::string{errorCaseFlowId} + " ! fakesink", "src", "domain is not set"},
             Case{fmt::format("mxlsrc name=src domain=/nonexistent/mxl-domain flow-id={} ! fakesink", errorCaseFlowId), "src",
                  "domain \"/nonexistent/mxl-domain\" does not exist"},
             Case{fmt::format("mxlsrc name=src domain={} ! fakesink", domain.str()), "src", "flow-id is not set"},
             Case{fmt::format("mxlsrc name=src domain={} flow-id=not-a-uuid ! fakesink", domain.str()), "src",
                  "flow-id \"not-a-uuid\" is not a UUID"},
             Case{fmt::format("mxlsrc name=src domain={} flow-id={} wait-for-flow=false ! fakesink", domain.str(), errorCaseFlowId), "src",
                  fmt::format("flow-id \"{}\" is not a flow of domain \"{}\"", errorCaseFlowId, domain.str())},
             Case{fmt::format("mxlsrc name=src domain={} flow-id={} ! fakesink", domain.str(), keyedId), "src",
                  "media_type video/v210a cannot be carried"},
             Case{fmt::format("mxlsrc name=src domain={} data-flow-id={} ! fakesink", domain.str(), videoId), "src",
                  fmt::format("data-flow-id \"{}\" is a video flow, not a data flow: set video-flow-id (or flow-id) to read it", videoId)},
             Case{fmt::format("mxlsrc name=src domain={} audio-flow-id={} ! fakesink", domain.str(), videoId), "src",
                  fmt::format("audio-flow-id \"{}\" is a video flow, not an audio flow", videoId)},
             Case{fmt::format("mxlsrc name=src domain={} flow-id={} video-flow-id={} ! fakesink", domain.str(), videoId, videoId), "src",
                  fmt::format("flow-id \"{}\" and video-flow-id \"{}\" are both set: set only one flow property", videoId, videoId)},
             Case{fmt::format("mxlsrc name=src domain={} video-flow-id=cam1 ! fakesink", domain.str()), "src",
                  "video-flow-id \"cam1\" is not a UUID"},
         })
    {
        checkFails(wrong);
    }
}
