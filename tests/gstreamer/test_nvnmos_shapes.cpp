// The shapes NVIDIA's NvNmos GStreamer elements (nmossink, nmossrc in NVIDIA/nvnmos) build around the MXL plugin when
// an IS-05 activation pins a flow: they swap a placeholder in a running pipeline for `mxlsink name=nmossink-mxl
// domain=… flow-id=… async=false` behind a blocked pad, or for `mxlsrc name=nmossrc-mxl domain=… video-flow-id=…`
// (audio-, data-) followed by a caps filter in a bin of its own, whose flow may be created only afterwards. Both run here
// with our elements, checked byte for byte. (Newer NvNmos puts capssetter, from gst-plugins-good, where capsfilter is;
// the shape is the same.)
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <condition_variable>
#include <mutex>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto nmosVideoFlowId = "9c41e2b7-58d3-4a6f-b0e1-7d2c3f8a9b54";
    constexpr auto nmosCaps = "video/x-raw,format=v210,width=64,height=8,framerate=50/1,interlace-mode=progressive";
    constexpr std::size_t nmosLines = 8;
    constexpr std::size_t nmosLineBytes = 256;
    // The bytes of the 64 pixels of a line: eleven groups of six pixels in 16 bytes. The rest of a line is padding, which
    // videotestsrc leaves as the buffer's memory held it and mxlsink writes as it comes.
    constexpr std::size_t nmosPixelBytes = (64 + 5) / 6 * 16;
    // One colour, not black: the same picture in every frame.
    constexpr auto colourSource = "videotestsrc pattern=solid-color foreground-color=0xff3a8c5e";

    // A pad probe that holds data at `pad` until removed, and says when it first did.
    class PadBlock
    {
    public:
        explicit PadBlock(GstPad* pad)
            : _pad{pad}
            , _probe{gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM, onBlocked, this, nullptr)}
        {
        }

        ~PadBlock()
        {
            release();
        }

        PadBlock(PadBlock const&) = delete;
        PadBlock& operator=(PadBlock const&) = delete;

        bool waitBlocked(std::chrono::seconds timeout)
        {
            std::unique_lock lock{_mutex};
            return _changed.wait_for(lock, timeout, [this] { return _blocked; });
        }

        void release()
        {
            if (_probe != 0)
            {
                gst_pad_remove_probe(_pad, _probe);
                _probe = 0;
            }
        }

    private:
        GstPad* _pad;
        gulong _probe;
        std::mutex _mutex;
        std::condition_variable _changed;
        bool _blocked = false;

        static GstPadProbeReturn onBlocked(GstPad*, GstPadProbeInfo*, gpointer self)
        {
            auto& block = *static_cast<PadBlock*>(self);
            std::lock_guard lock{block._mutex};
            block._blocked = true;
            block._changed.notify_all();
            return GST_PAD_PROBE_OK;
        }
    };

    GstBin* binOf(GstElement* element)
    {
        auto* const parent = gst_element_get_parent(element);
        REQUIRE(parent != nullptr);
        gst_object_unref(parent);
        return GST_BIN(parent);
    }

    // Unlinks `placeholder` (stopped and removed) and puts `replacement` in its place, downstream of `upstream` or
    // upstream of `downstream`, started with the pipeline.
    void swapIn(GstElement* placeholder, GstElement* replacement, GstElement* upstream, GstElement* downstream)
    {
        auto* const bin = binOf(placeholder);
        if (upstream != nullptr)
        {
            gst_element_unlink(upstream, placeholder);
        }
        else
        {
            gst_element_unlink(placeholder, downstream);
        }
        REQUIRE(gst_element_set_state(placeholder, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
        REQUIRE(gst_bin_remove(bin, placeholder) == TRUE);
        REQUIRE(gst_bin_add(bin, replacement) == TRUE);
        REQUIRE(gst_element_link(upstream != nullptr ? upstream : replacement, upstream != nullptr ? replacement : downstream) == TRUE);
        REQUIRE(gst_element_sync_state_with_parent(replacement) == TRUE);
    }

    // The pixels of a v210 frame at nmosCaps, line after line, without the padding.
    std::vector<std::uint8_t> pixelsOf(std::vector<std::uint8_t> const& frame)
    {
        REQUIRE(frame.size() == nmosLines * nmosLineBytes);
        std::vector<std::uint8_t> pixels;
        for (std::size_t line = 0; line < nmosLines; ++line)
        {
            auto const first = frame.begin() + static_cast<std::ptrdiff_t>(line * nmosLineBytes);
            pixels.insert(pixels.end(), first, first + static_cast<std::ptrdiff_t>(nmosPixelBytes));
        }
        return pixels;
    }

    std::vector<std::uint8_t> colourFrame()
    {
        Pipeline reference{fmt::format("{} num-buffers=2 ! {} ! appsink name=out", colourSource, nmosCaps)};
        auto const frames = reference.receiveToEnd("out", 2);
        REQUIRE(pixelsOf(frames[0].bytes) == pixelsOf(frames[1].bytes));
        return pixelsOf(frames[0].bytes);
    }
}

TEST_CASE("NvNmos sender shape: mxlsink async=false swapped into a running pipeline behind a blocked pad writes every frame's pixels")
{
    TempDomain domain{"gst-nvnmos-sink"};
    setHistory(domain, twoSecondsNs);
    auto const colour = colourFrame();
    Pipeline pipeline{fmt::format("{} is-live=true ! {} ! queue name=anchor ! fakesink name=fake async=false", colourSource, nmosCaps)};
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
    REQUIRE(gst_element_get_state(pipeline.element("fake"), nullptr, nullptr, 30 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS);

    auto* const anchor = pipeline.element("anchor");
    auto* const anchorSrc = gst_element_get_static_pad(anchor, "src");
    {
        PadBlock block{anchorSrc};
        REQUIRE(block.waitBlocked(std::chrono::seconds{30}));
        auto* const sink = gst_element_factory_make("mxlsink", "nmossink-mxl");
        REQUIRE(sink != nullptr);
        g_object_set(sink, "domain", domain.str().c_str(), "flow-id", nmosVideoFlowId, "async", FALSE, nullptr);
        swapIn(pipeline.element("fake"), sink, anchor, nullptr);
    }
    gst_object_unref(anchorSrc);

    constexpr std::uint64_t frames = 10;
    REQUIRE(waitForCounter(pipeline.element("nmossink-mxl"), "buffers-written", frames) >= frames);
    FlowProbe probe{domain, nmosVideoFlowId};
    auto const head = probe.head();
    for (std::uint64_t index = head - frames + 1; index <= head; ++index)
    {
        INFO("grain ", index);
        CHECK(pixelsOf(probe.grain(index)) == colour);
    }
    CHECK(errorFrom(pipeline.drainBus(), "nmossink-mxl").empty());
}

TEST_CASE("NvNmos receiver shape: a placeholder appsrc swapped for a bin of mxlsrc video-flow-id and a caps filter, the flow "
          "created afterwards, reads the flow byte for byte")
{
    TempDomain domain{"gst-nvnmos-src"};
    setHistory(domain, twoSecondsNs);
    constexpr std::size_t buffers = 6;
    Pipeline pipeline{
        fmt::format("appsrc name=placeholder is-live=true format=time caps={} ! queue name=anchor ! appsink name=out", nmosCaps)};
    auto& out = pipeline.collect("out");
    REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);

    GError* error = nullptr;
    auto* const inner = gst_parse_bin_from_description(
        fmt::format("mxlsrc name=nmossrc-mxl domain={} video-flow-id={} num-buffers={} ! capsfilter name=nmossrc-caps caps={}",
                    domain.str(), nmosVideoFlowId, buffers, nmosCaps)
            .c_str(),
        TRUE, &error);
    INFO("bin: ", error != nullptr ? error->message : "");
    REQUIRE(inner != nullptr);
    gst_object_set_name(GST_OBJECT(inner), "nmossrc-inner");
    swapIn(pipeline.element("placeholder"), inner, nullptr, pipeline.element("anchor"));

    FlowFeeder feeder{domain, videoDefinition(nmosVideoFlowId, 64, 8, mxlRational{50, 1})};
    auto const messages = pipeline.runUntilEnd(std::chrono::seconds{60});
    INFO("error: ", errorFrom(messages, "nmossrc-mxl"));
    REQUIRE(sawEos(messages));
    auto const received = out.received();
    REQUIRE(received.size() == buffers);
    checkFedGrains(received, 256 * 8);
    for (std::size_t i = 1; i < received.size(); ++i)
    {
        CHECK(received[i].offset == received[i - 1].offset + 1);
    }
}
